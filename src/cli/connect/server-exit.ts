/**
 * What the user sees when a stdio server died: the exit, and the last lines the server wrote to
 * stderr, which are usually the explanation (a missing file, a stack trace). The lines come from
 * the ServerExitedError's stderr tail wherever it sits in the error's cause chain (the era probe
 * and the client wrap it), bounded and each made one printable line.
 */
import { printableLine } from "../../text/printable.js";
import { ServerExitedError } from "../../transports/stdio/client.js";

/** How many of the server's last stderr lines are shown, and how long each may be. */
export const STDERR_LINES_SHOWN = 20;
const MAX_LINE_LENGTH = 500;

/** The ServerExitedError behind `error`, if a stdio server's exit is what went wrong. */
export function serverExit(error: unknown): ServerExitedError | undefined {
  const seen = new Set<unknown>();
  let current = error;
  while (current instanceof Error && !seen.has(current)) {
    if (current instanceof ServerExitedError) return current;
    seen.add(current);
    current = current.cause;
  }
  return undefined;
}

/**
 * How the exit is reported: `message` is the line that says the server exited (to follow the
 * error's own line when the exit is only its cause), `stderr` the server's last stderr lines,
 * indented, at most STDERR_LINES_SHOWN of them.
 */
export function describeExit(exit: ServerExitedError): { message: string; stderr: string[] } {
  const summary = printableLine(exit.message.split("\n")[0]!.replace(/; stderr:$/, ""));
  const stderr = stderrTailLines(exit.stderr);
  if (stderr.length === 0) return { message: summary, stderr };
  return { message: `${summary}; its stderr ended with:`, stderr };
}

/** A server's last stderr lines (at most STDERR_LINES_SHOWN), each indented and printable. */
export function stderrTailLines(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  return trimmed
    .split(/\r?\n/)
    .slice(-STDERR_LINES_SHOWN)
    .map((line) => {
      const short = line.length > MAX_LINE_LENGTH ? `${line.slice(0, MAX_LINE_LENGTH)}…` : line;
      return `  ${printableLine(short)}`;
    });
}
