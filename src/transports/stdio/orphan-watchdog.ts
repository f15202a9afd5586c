import { type ChildProcess, spawn } from "node:child_process";

/**
 * Ties stdio servers' lives to ours. Servers are spawned `detached` (their own process group, so
 * their whole tree can be signalled), which also keeps terminal signals from reaching them, and a
 * parent that dies without running its exit hook (SIGKILL, the OOM killer, a crash) would leave a
 * server that ignores EOF running forever.
 *
 * One watchdog per process (per thread, as module state is): a `/bin/sh` loop reading a pipe whose
 * write end only we hold. We write `+<pgid>` when a server's group starts and `-<pgid>` when it has
 * ended. However we die, the kernel closes our end; the shell reads EOF, SIGKILLs every group still
 * listed (the whole tree, grandchildren of launchers such as npx included) and exits.
 *
 * Why not `setpriv --pdeathsig KILL` in front of each server (what we did before): that is one
 * more exec on every launch (about 5 ms of a ~120 ms cold start on a small VM), it exists only on
 * Linux, and it tied only the direct child. The watchdog costs one `sh` per process, started with
 * the first server, and a few bytes on a pipe per server; it runs wherever /bin/sh does. It leads
 * its own process group, so it never keeps a server's group "alive" for the tree checks.
 *
 * Limit: a server whose launch we had not yet written down when we died (microseconds after the
 * spawn) is not covered; neither were servers before setpriv's prctl ran.
 */

const SCRIPT = `trap '' HUP INT
groups=' '
while IFS= read -r line; do
  id=\${line#?}
  case $id in ''|*[!0-9]*) continue ;; esac
  case $line in
    +*) groups="$groups$id " ;;
    -*) case $groups in *" $id "*) groups="\${groups%%" $id "*} \${groups#*" $id "}" ;; esac ;;
  esac
done
for id in $groups; do kill -s KILL -- "-$id" 2>/dev/null; done`;

const supported = process.platform !== "win32";

/** The groups currently tied to us; written again to a watchdog that had to be restarted. */
const tied = new Set<number>();
/** The running watchdog; null once /bin/sh could not be started (we stop trying). */
let watchdog: ChildProcess | null | undefined;
/** When the running watchdog started (ms), to tell one killed from outside from one that cannot run. */
let startedAt = 0;

/** From now until `untie(pgid)`, the process group `pgid` is SIGKILLed if this process dies. */
export function tie(pgid: number): void {
  if (!supported || tied.has(pgid)) return;
  tied.add(pgid);
  if (watchdog === undefined) startWatchdog();
  else tell(`+${pgid}`);
}

/** The group has ended (or is ended by us): the watchdog forgets it. */
export function untie(pgid: number): void {
  if (!tied.delete(pgid)) return;
  tell(`-${pgid}`);
}

function tell(line: string): void {
  watchdog?.stdin?.write(`${line}\n`);
}

function startWatchdog(): void {
  const child = spawn("/bin/sh", ["-c", SCRIPT], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
    windowsHide: true,
  });
  watchdog = child;
  startedAt = Date.now();
  // Neither the shell nor our pipe to it may keep this process running.
  child.unref();
  const stdin = child.stdin!;
  (stdin as unknown as { unref?: () => void }).unref?.();
  stdin.on("error", () => {}); // EPIPE if it was killed: its exit below restarts it.
  child.once("error", () => {
    // /bin/sh could not be started: nothing to tie to, and no point trying again per server.
    if (watchdog === child) watchdog = null;
  });
  child.once("exit", () => {
    if (watchdog !== child) return;
    watchdog = undefined;
    // Killed from outside: a new one, told every group still tied. One that died at once is not
    // restarted in a loop; the next tie tries again.
    if (tied.size > 0 && Date.now() - startedAt > 1000) startWatchdog();
  });
  const lines = [...tied].map((pgid) => `+${pgid}\n`).join("");
  if (lines) stdin.write(lines);
}
