import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { tie, untie } from "./orphan-watchdog.js";

/**
 * Signalling a server together with everything it started. Launchers such as npx and uvx run the
 * real server as a grandchild; signalling only the direct child would orphan it. On POSIX the
 * child is spawned `detached`, so it leads a new process group whose id is its pid, and the whole
 * group is signalled through the negative pid. Windows has no groups to signal, so taskkill walks
 * the tree by parent pid instead.
 */

const isWindows = process.platform === "win32";

/** True where children are spawned as process-group leaders (`detached: true`). */
export const spawnsProcessGroups = !isWindows;

type TreeSignal = "SIGTERM" | "SIGKILL";

/**
 * Sends `signal` to the tree rooted at `pid`. On Windows, SIGTERM becomes a polite `taskkill /T`
 * (which console programs may ignore) and SIGKILL a forced `taskkill /T /F`.
 */
export async function signalTree(pid: number, signal: TreeSignal): Promise<void> {
  if (isWindows) {
    await runTaskkill(pid, signal === "SIGKILL");
    return;
  }
  // The leader is known to be alive here (its exit has not been seen), so if its group cannot be
  // signalled for any reason, signalling the leader alone is safe and better than nothing.
  if (!signalGroup(pid, signal)) signalProcess(pid, signal);
}

/**
 * Whether anything in the tree may still be running. On POSIX this asks whether the group still
 * has members; on Windows only the root can be asked about.
 */
export function treeAlive(pid: number): boolean {
  if (isWindows) return probe(pid);
  if (!probe(-pid)) return false;
  // Killed orphans stay zombies until init reaps them, and where init does not reap promptly
  // (containers often) they would look alive. On Linux, look for a member that is not a zombie.
  return process.platform === "linux" ? groupHasRunningMember(pid) : true;
}

/**
 * After the root has exited, ends whatever it left behind in its group: SIGTERM, up to `waitMs`
 * for them to go, then SIGKILL. A no-op on Windows, where a dead root's tree can no longer be
 * found.
 */
export async function terminateLeftovers(pid: number, waitMs: number): Promise<void> {
  if (isWindows || !treeAlive(pid)) return;
  signalGroup(pid, "SIGTERM");
  if (await waitUntilGone(pid, waitMs)) return;
  signalGroup(pid, "SIGKILL");
  // Bounded: an orphan that no init process reaps stays a zombie and keeps the group "alive".
  await waitUntilGone(pid, 1000);
}

/** Polls until the tree is gone; false if it is still there after `waitMs`. */
async function waitUntilGone(pid: number, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while (treeAlive(pid)) {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(20, left)));
  }
  return true;
}

// Trees started by this process that have not been fully ended yet. If the program exits while
// some remain (a test run finishing, process.exit in a CLI), they are killed synchronously from
// the 'exit' hook rather than left running with nobody reading their output. Where this process
// dies without running that hook (SIGKILL, a crash), the orphan watchdog kills the trees tied to
// it (orphan-watchdog.ts).
const liveTrees = new Set<number>();
let exitHookInstalled = false;

export function trackTree(pid: number, options: { dieWithParent: boolean }): void {
  liveTrees.add(pid);
  if (options.dieWithParent) tie(pid); // a no-op where there are no process groups (Windows)
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", killLiveTrees);
  }
}

export function untrackTree(pid: number): void {
  liveTrees.delete(pid);
  untie(pid);
}

function killLiveTrees(): void {
  for (const pid of liveTrees) {
    // Only synchronous work is possible here; SIGKILL because nothing will wait for a SIGTERM.
    if (isWindows) {
      spawnSync("taskkill", ["/T", "/F", "/PID", String(pid)], {
        stdio: "ignore",
        windowsHide: true,
      });
    } else {
      signalGroup(pid, "SIGKILL");
    }
  }
  liveTrees.clear();
}

/** Signals the group led by `pid`; false if there was no such group (or no permission). */
function signalGroup(pid: number, signal: TreeSignal): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

function signalProcess(pid: number, signal: TreeSignal): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone meanwhile.
  }
}

function probe(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function groupHasRunningMember(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "latin1");
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses, hence lastIndexOf.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z") return true;
  }
  return false;
}

function runTaskkill(pid: number, force: boolean): Promise<void> {
  const args = force ? ["/T", "/F", "/PID", String(pid)] : ["/T", "/PID", String(pid)];
  return new Promise((resolve) => {
    const child = spawn("taskkill", args, { stdio: "ignore", windowsHide: true });
    child.once("error", () => resolve());
    child.once("close", () => resolve());
  });
}
