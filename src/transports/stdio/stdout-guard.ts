import type { Writable } from "node:stream";
import type { StreamWrite } from "../ndjson.js";
import { sharedHold } from "./shared-hold.js";

/**
 * Keeps stray bytes off a stdio server's stdout, where anything but protocol corrupts the stream
 * (stdio transport spec: the server MUST NOT write anything to stdout that is not a valid MCP
 * message). The console redirection (console-redirect.ts) covers `console.log` and friends; this
 * covers the rest: a library or handler calling `process.stdout.write` directly, or piping into
 * process.stdout. While held, `process.stdout.write` is replaced by a function that writes to
 * stderr instead; the transport writes with the method saved before the swap (protocolWrite),
 * so the protocol path costs nothing extra per message.
 *
 * Not covered: code that writes to file descriptor 1 itself (fs.writeSync(1, …), a native
 * addon, a child process inheriting our stdout). Those must be fixed at their source.
 */

type WriteMethod = Writable["write"];

/** What `process.stdout.write` was before the guard. */
let saved: WriteMethod | undefined;
/** Whether that was an own property (restored as one) rather than the inherited method. */
let hadOwnWrite = false;

/** What `process.stdout.write` does while guarded. */
const strayWrite = function strayWrite(this: unknown, ...args: unknown[]): boolean {
  const stderr = process.stderr;
  const accepted = Reflect.apply(stderr.write, stderr, args) as boolean;
  // A writer that waits for stdout's 'drain' (a pipe into process.stdout) must get one when
  // the stream it really filled, stderr, drains. A spare 'drain' only makes the transport's
  // writer try its queue again.
  if (!accepted) stderr.once("drain", () => process.stdout.emit("drain"));
  return accepted;
};

/**
 * The write method that really reaches `stream`: for process.stdout under the guard, the one it
 * had before; otherwise the stream's current one.
 */
export function protocolWrite(stream: Writable): StreamWrite {
  return stream === process.stdout && saved !== undefined ? saved : stream.write;
}

/**
 * Sends every `process.stdout.write` to stderr until the returned function is called. Nested
 * holders share one guard (the last release restores).
 */
export const guardStdout: () => () => void = sharedHold(install, uninstall);

function install(): void {
  const stdout = process.stdout as Writable & { write: WriteMethod };
  hadOwnWrite = Object.hasOwn(stdout, "write");
  saved = stdout.write;
  stdout.write = strayWrite as WriteMethod;
}

function uninstall(): void {
  const stdout = process.stdout as Writable & { write: WriteMethod };
  // Someone who replaced write after us keeps their version (as console-redirect.ts does).
  if (stdout.write === (strayWrite as WriteMethod)) {
    if (hadOwnWrite) stdout.write = saved!;
    else delete (stdout as Partial<Writable>).write;
  }
  saved = undefined;
  hadOwnWrite = false;
}
