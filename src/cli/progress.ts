import type { Progress } from "../protocol/outgoing.js";

const BAR_WIDTH = 30;

/**
 * Shows a request's progress on stderr: a bar redrawn in place on a terminal, a plain line per
 * notification otherwise (logs and CI keep every step).
 */
export class ProgressReporter {
  private readonly tty: boolean;
  private drawn = false;

  constructor(tty = process.stderr.isTTY === true) {
    this.tty = tty;
  }

  readonly report = (progress: Progress): void => {
    const { total, message } = progress;
    const count = total === undefined ? `${progress.progress}` : `${progress.progress}/${total}`;
    if (!this.tty) {
      process.stderr.write(`progress ${count}${message ? ` ${message}` : ""}\n`);
      return;
    }
    const fraction = total ? Math.max(0, Math.min(1, progress.progress / total)) : undefined;
    const bar =
      fraction === undefined
        ? ""
        : `[${"#".repeat(Math.round(fraction * BAR_WIDTH)).padEnd(BAR_WIDTH, " ")}] `;
    const columns = process.stderr.columns ?? 80;
    const line = `${bar}${count}${message ? ` ${message}` : ""}`.slice(0, columns - 1);
    process.stderr.write(`\r\x1b[2K${line}`);
    this.drawn = true;
  };

  /** Clears the bar so the result prints on a clean line. */
  done(): void {
    if (this.drawn) process.stderr.write("\r\x1b[2K");
    this.drawn = false;
  }
}
