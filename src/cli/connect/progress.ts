import type { JsonObject } from "../../jsonrpc/types.js";
import type { Progress } from "../../protocol/outgoing.js";
import { printableLine } from "../../text/printable.js";
import { clearStatusLine, drawStatusLine, statusLineWidth, writeErr } from "../core/terminal.js";

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
    const { total } = progress;
    // The server's message is one printable line, before it is measured and cut to the width.
    const message = progress.message ? printableLine(progress.message) : undefined;
    const count = total === undefined ? `${progress.progress}` : `${progress.progress}/${total}`;
    if (!this.tty) {
      writeErr(`progress ${count}${message ? ` ${message}` : ""}`);
      return;
    }
    const fraction = total ? Math.max(0, Math.min(1, progress.progress / total)) : undefined;
    const bar =
      fraction === undefined
        ? ""
        : `[${"#".repeat(Math.round(fraction * BAR_WIDTH)).padEnd(BAR_WIDTH, " ")}] `;
    const line = `${bar}${count}${message ? ` ${message}` : ""}`.slice(0, statusLineWidth());
    drawStatusLine(line);
    this.drawn = true;
  };

  /**
   * A task's status while `call` waits for it (the tasks extension): one line per change, not
   * per poll, every part printable (the id and message come from the server).
   */
  readonly taskStatus = (task: JsonObject): void => {
    const message = typeof task.statusMessage === "string" ? printableLine(task.statusMessage) : "";
    const line = `task ${printableLine(String(task.taskId))} ${printableLine(String(task.status))}${message ? ` ${message}` : ""}`;
    if (line === this.lastTaskLine) return;
    this.lastTaskLine = line;
    if (!this.tty) {
      writeErr(line);
      return;
    }
    drawStatusLine(line.slice(0, statusLineWidth()));
    this.drawn = true;
  };
  private lastTaskLine = "";

  /** Clears the bar so the result prints on a clean line. */
  done(): void {
    if (this.drawn) clearStatusLine();
    this.drawn = false;
  }
}
