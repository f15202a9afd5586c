/**
 * The one way the CLI writes for a person. Anything a peer sent (names, results, logs, error
 * messages, a server's stderr) may carry escape sequences that rewrite the screen, hide input,
 * set the clipboard (OSC 52) or disguise links (OSC 8); every write here passes through
 * `printable`, so no control character but newline and tab reaches stdout or stderr, whether
 * or not they are a terminal. Callers still use `printableLine` on single-line fields so that
 * a newline in a name cannot fake a line of its own.
 *
 * The only other writes in src/cli are the protocol streams (gateway --stdio, tap, which also
 * passes the server's stderr through unchanged) and start-demo's example server;
 * test/cli/terminal-injection.test.ts checks that it stays so.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { printable, printableLine } from "../../text/printable.js";

/** Where the command's text goes: anything with a `write` (process.stdout, a test's buffer). */
export interface TextSink {
  write(text: string): unknown;
}

/** The two streams a run of the command writes to. */
export interface CliIo {
  stdout: TextSink;
  stderr: TextSink;
}

const PROCESS_IO: CliIo = { stdout: process.stdout, stderr: process.stderr };

// A run in process (tests, an embedding program) writes to its own streams; the bin never
// enters a store, so it pays nothing for the async context tracking.
const runIo = new AsyncLocalStorage<CliIo>();

/** Runs `work` with every write below going to `io` (and to it alone), however async it gets. */
export function withIo<T>(io: CliIo, work: () => T): T {
  return runIo.run(io, work);
}

const io = (): CliIo => runIo.getStore() ?? PROCESS_IO;

/** Text for stdout; a missing final newline is added. */
export function writeOut(text: string): void {
  io().stdout.write(withNewline(printable(text)));
}

/** Text for stderr; a missing final newline is added. */
export function writeErr(text: string): void {
  io().stderr.write(withNewline(printable(text)));
}

/** A piece of a stream (a server's stderr as it comes) for stderr, printable, as it is cut. */
export function writeErrChunk(text: string): void {
  io().stderr.write(printable(text));
}

/** A value as JSON on stdout: the wire JSON, parsed back to the very same value. */
export function writeJson(value: unknown): void {
  io().stdout.write(`${jsonText(value, 2)}\n`);
}

// JSON.stringify escapes C0 controls but leaves DEL, C1, the line/paragraph separators and the
// bidi controls raw; they only ever occur inside strings, where `\uXXXX` means the same thing.
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** JSON.stringify, with what it leaves raw escaped as `\uXXXX` (identical once parsed). */
export function jsonText(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent) ?? "undefined";
  return text.replace(
    RAW_IN_JSON,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * One line on stderr redrawn in place (a progress bar on a terminal). The redraw sequence is
 * ours; the text inside it is a peer's, and is made one printable line.
 */
export function drawStatusLine(text: string): void {
  io().stderr.write(`\r\x1b[2K${printableLine(text)}`);
}

/** A question on stderr, the answer typed after it on the same line. */
export function writePrompt(text: string): void {
  io().stderr.write(printableLine(text));
}

/**
 * The width a status line is cut to: the terminal's, less one so the cursor never wraps. A
 * terminal that reports no width (0 columns: a pty nobody sized, some CI runners) gets 80, not
 * a line cut to nothing.
 */
export function statusLineWidth(): number {
  const columns = process.stderr.columns;
  return (typeof columns === "number" && columns > 1 ? columns : 80) - 1;
}

export function clearStatusLine(): void {
  io().stderr.write("\r\x1b[2K");
}

function withNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}
