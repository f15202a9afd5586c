/**
 * The gateway's start, as the operator reads it. Until the child has answered its handshake its
 * stderr is held back: if it dies there, the failure is one line and the child's last stderr
 * lines follow once (made printable), rather than the same lines echoed live, then again under
 * a library's account of the era probe. Once the child is up, what it held is written and the
 * rest goes out as it comes.
 */
import { LocalError } from "../../jsonrpc/errors.js";
import { describeExit, serverExit, stderrTailLines } from "../connect/server-exit.js";
import { explain } from "../connect/session.js";
import { CliError } from "../core/errors.js";

/** How much of the child's stderr is held during the start (the oldest goes beyond this). */
const MAX_HELD_CHARS = 64 * 1024;

export class StartupStderr {
  private held: string[] | undefined = [];
  private heldChars = 0;
  private readonly write: (text: string) => void;

  constructor(write: (text: string) => void) {
    this.write = write;
  }

  get starting(): boolean {
    return this.held !== undefined;
  }

  chunk(text: string): void {
    if (this.held === undefined) {
      this.write(text);
      return;
    }
    this.held.push(text);
    this.heldChars += text.length;
    while (this.heldChars > MAX_HELD_CHARS && this.held.length > 1) {
      this.heldChars -= this.held.shift()!.length;
    }
  }

  /** The last lines held, indented and printable (for a start that failed otherwise). */
  tail(): string[] {
    const lines = stderrTailLines((this.held ?? []).join(""));
    return lines.length === 0 ? [] : ["its stderr ended with:", ...lines];
  }

  /** The child is up: what it wrote meanwhile goes out now, the rest as it comes. */
  started(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const text of held) this.write(text);
  }
}

/**
 * Why the child could not be served, as one line, with the child's last stderr lines as
 * details: the error the era probe or handshake gave, told by its cause.
 */
export function childStartFailure(error: unknown, stderr: StartupStderr): CliError {
  const exit = serverExit(error);
  if (exit) {
    const { message, stderr: tail } = describeExit(exit);
    return new CliError(`the child ended before it answered: ${message}`, 1, tail);
  }
  // "The server closed the connection during the era probe": what closed it says more.
  const told = error instanceof LocalError && error.kind === "closed" ? error.cause : undefined;
  const failure = explain(told instanceof Error ? told : error);
  return new CliError(failure.message, failure.exitCode, [...failure.details, ...stderr.tail()]);
}
