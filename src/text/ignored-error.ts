/**
 * Where errors go that we choose not to handle. Some failures change nothing the code could do
 * (a notification to a connection that just closed, a stale lock file, an event store that failed
 * while a stream ends), so it goes on; but someone debugging wants to see them. Silent by
 * default; with MCPWIRE_DEBUG set (to anything but "" or "0") each one is one line on stderr:
 *
 *   mcpwire debug: <what failed>: <the error's message>
 *
 * console.error and a guarded read of the environment, so the core stays portable (a runtime
 * without `process` is simply silent). The message may come from a peer: shown as one printable
 * line. Only what our code already puts in error messages is shown, so no secret appears here.
 */
import { printableLine } from "./printable.js";

function debugging(): boolean {
  try {
    const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
      ?.env?.MCPWIRE_DEBUG;
    return value !== undefined && value !== "" && value !== "0";
  } catch {
    // An environment we may not read (Deno without --allow-env): not debugging.
    return false;
  }
}

/** Drops `error` on purpose; `what` says what failed ("sending a cancellation"). */
export function ignoreError(what: string, error: unknown): void {
  if (!debugging()) return;
  const message = error instanceof Error ? error.message : String(error);
  console.error(`mcpwire debug: ${what}: ${printableLine(message)}`);
}

/** The same for a promise chain: `promise.catch(ignoring("sending a cancellation"))`. */
export function ignoring(what: string): (error: unknown) => void {
  return (error) => ignoreError(what, error);
}
