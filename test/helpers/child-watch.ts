/**
 * Watches a child server a test relies on. When one dies on its own before the test is done, what
 * a person sees is its exit code and its stderr, not a bare timeout or ECONNREFUSED much later:
 * the death is printed to this process's stderr at once, and the next `throwIfAServerDied()` (which
 * `waitFor` calls while it polls) throws it.
 */
import type { ChildProcess } from "node:child_process";

interface Watched {
  name: string;
  child: ChildProcess;
  stderr: () => string;
  /** Set when a helper (or the test, through `child.kill`) ended it on purpose. */
  expected: boolean;
  /** Set once its death was thrown, so that it fails one wait, not every later one. */
  reported: boolean;
  /** Set once its pipes are closed: its stderr is then whole. */
  closed: boolean;
}

const watched = new Map<ChildProcess, Watched>();
/** Enough of a dying server's stderr to see why; its last lines say the most. */
const STDERR_TAIL = 4000;

/** "<name> (pid N) exited with code C before the test was done; its stderr: …" */
export function describeExit(
  name: string,
  child: ChildProcess,
  stderr: string,
  when = "before the test was done",
): string {
  const how =
    child.signalCode !== null
      ? `was killed by ${child.signalCode}`
      : `exited with code ${child.exitCode}`;
  const tail = stderr.length > STDERR_TAIL ? `…${stderr.slice(-STDERR_TAIL)}` : stderr;
  const shown = tail.trim() === "" ? "(nothing on stderr)" : `its stderr:\n${tail.trimEnd()}`;
  return `${name} (pid ${child.pid}) ${how} ${when}; ${shown}`;
}

/** Starts watching `child` (a server some test needs up) until `expectExit(child)` is called. */
export function watchChild(name: string, child: ChildProcess, stderr: () => string): void {
  const entry: Watched = { name, child, stderr, expected: false, reported: false, closed: false };
  watched.set(child, entry);
  // `close`, not `exit`: by then its stderr pipe is drained, so the message has its last words.
  child.once("close", () => {
    entry.closed = true;
    // A signal the test sent itself (child.kill) is an ending it asked for.
    if (entry.expected || child.killed) {
      watched.delete(child);
      return;
    }
    process.stderr.write(`test helper: ${describeExit(name, child, stderr())}\n`);
  });
}

/** The test (or a helper's stop) ends `child` on purpose from now on: its exit is no failure. */
export function expectExit(child: ChildProcess): void {
  const entry = watched.get(child);
  if (entry) entry.expected = true;
}

/** Why `child` died unexpectedly, if it did. */
export function deathOf(child: ChildProcess): string | undefined {
  const entry = watched.get(child);
  if (!entry?.closed || entry.expected || child.killed) return undefined;
  return describeExit(entry.name, child, entry.stderr());
}

/** Throws the first unexpected death among the watched servers not yet reported. */
export function throwIfAServerDied(): void {
  for (const entry of watched.values()) {
    if (entry.reported) continue;
    const death = deathOf(entry.child);
    if (death === undefined) continue;
    entry.reported = true;
    throw new Error(death);
  }
}
