/** Process liveness for tests that check a process is gone (zombies count as gone). */
import { readFileSync } from "node:fs";
import { until } from "./poll.js";

/**
 * Whether `pid` is running. A killed process whose parent died first stays a zombie until init
 * reaps it, and in containers init often never does: on Linux a zombie counts as gone.
 */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  if (process.platform !== "linux") return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Polls until `pid` is gone; false if it still runs after `waitMs`. */
export async function processGoneWithin(pid: number, waitMs: number): Promise<boolean> {
  try {
    await until(() => !processRunning(pid), `process ${pid} to go`, waitMs);
    return true;
  } catch {
    return false;
  }
}

/** Kills whatever of `pids` (and their process groups) is still there; for test cleanup. */
export function killLeftovers(pids: Iterable<number>): void {
  for (const pid of pids) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
}
