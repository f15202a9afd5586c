import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";

/**
 * Ties a stdio server's life to ours. Servers are spawned `detached` (their own process group, so
 * their whole tree can be signalled), which also keeps terminal signals from reaching them, and
 * a parent that dies without running its exit hook (SIGKILL, the OOM killer, a crash) would
 * leave a server that ignores EOF running forever.
 *
 * On Linux the kernel can do it: PR_SET_PDEATHSIG makes it send a signal to the child the moment
 * its parent dies. Node cannot call prctl itself, so the command is launched through util-linux
 * `setpriv --pdeathsig KILL -- command args…`, which sets the flag and then execs the command:
 * same pid, same process group, no process left in between (tree-kill keeps working), about a
 * millisecond more per launch. We chose this over a watchdog process on a pipe from us (portable
 * to macOS, but one more process per server, and one that would itself keep the process group
 * "alive" for the tree checks). KILL, not TERM: the servers this guards against are the ones
 * that ignore polite endings.
 *
 * Limits: only the direct child is tied (after a SIGKILL of ours, a launcher's grandchildren
 * get no more than EOF on the pipes they share); the "parent" is the thread that spawned, so a
 * server spawned from a worker thread dies with that worker. Other
 * platforms, or Linux without a setpriv that knows --pdeathsig (util-linux < 2.33), launch the
 * command unchanged.
 */

/** The setpriv to launch through, once looked up (null: none usable). */
let setprivPath: string | null | undefined;

/**
 * The command and arguments to spawn so that the child dies with us, or the given ones when that
 * is not possible here. `path` is the PATH the child will be started with, `cwd` its directory.
 */
export function launchTiedToParent(
  command: string,
  args: readonly string[],
  path: string | undefined,
  cwd: string | undefined,
): { command: string; args: string[] } {
  const unchanged = { command, args: [...args] };
  if (process.platform !== "linux") return unchanged;
  const setpriv = findSetpriv();
  // A command that cannot be found must still fail the way spawn reports it (ENOENT), not as a
  // wrapper that started and exited 127; so wrap only commands that exist.
  if (setpriv === null || !commandExists(command, path, cwd)) return unchanged;
  return { command: setpriv, args: ["--pdeathsig", "KILL", "--", command, ...args] };
}

function findSetpriv(): string | null {
  if (setprivPath !== undefined) return setprivPath;
  setprivPath = null;
  for (const dir of (process.env.PATH ?? "/usr/bin:/bin").split(delimiter)) {
    if (!isAbsolute(dir)) continue; // never a setpriv that the working directory supplies
    const candidate = join(dir, "setpriv");
    if (!isExecutableFile(candidate)) continue;
    // Older setpriv lacks the option and would fail every launch. Its help text names the
    // option; reading the binary once (~80 KB, well under a millisecond) is far cheaper than
    // running `setpriv --help` (a process, tens of milliseconds on a busy machine).
    try {
      if (readFileSync(candidate).includes("--pdeathsig")) setprivPath = candidate;
    } catch {
      // unreadable: leave commands unwrapped
    }
    break;
  }
  return setprivPath;
}

/** Whether `command` names an executable file, looked up as execvp would. */
function commandExists(
  command: string,
  path: string | undefined,
  cwd: string | undefined,
): boolean {
  if (command.includes("/")) return isExecutableFile(resolve(cwd ?? process.cwd(), command));
  if (path === undefined) return false;
  return path
    .split(delimiter)
    .some((dir) => isExecutableFile(resolve(cwd ?? process.cwd(), dir || ".", command)));
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
