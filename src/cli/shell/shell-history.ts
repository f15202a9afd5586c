import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ignoreError } from "../../text/ignored-error.js";
import { printableLine } from "../../text/printable.js";

export const HISTORY_SIZE = 1000;

/** Where the shell keeps its history: $MCPWIRE_HISTORY, else ~/.mcpwire_history. */
export function historyPath(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.MCPWIRE_HISTORY;
  return override !== undefined && override !== "" ? override : join(homedir(), ".mcpwire_history");
}

/**
 * The shell's history across runs: one line per entry, oldest first, appended as lines are
 * entered (so a killed shell keeps what was typed). A missing or unreadable file is an empty
 * history; history is a convenience and never stops the shell. readline redraws history entries
 * as they are, so a line with control characters (pasted from a server's output, or put in the
 * file by something else) is neither saved nor loaded.
 */
export class ShellHistory {
  readonly path: string;
  private warned = false;

  constructor(path: string) {
    this.path = path;
  }

  /** The last HISTORY_SIZE entries, newest first (the order readline wants). */
  load(): string[] {
    let lines: string[];
    try {
      lines = readFileSync(this.path, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "" && isPlain(line));
    } catch {
      return [];
    }
    const kept = lines.slice(-HISTORY_SIZE);
    // Keep the file from growing without bound: trim it when it is twice the size we read.
    if (lines.length > 2 * HISTORY_SIZE) this.write(`${kept.join("\n")}\n`);
    return kept.reverse();
  }

  add(line: string, warn: (message: string) => void): void {
    if (line.trim() === "" || !isPlain(line)) return;
    try {
      appendFileSync(this.path, `${line}\n`, { mode: 0o600 });
    } catch (error) {
      if (!this.warned) warn(`history not saved to ${this.path}: ${(error as Error).message}`);
      this.warned = true;
    }
  }

  private write(text: string): void {
    try {
      writeFileSync(this.path, text, { mode: 0o600 });
    } catch (error) {
      // Trimming is best effort; the next run tries again.
      ignoreError("trimming the shell history", error);
    }
  }
}

/** Whether a line shows as itself (no control characters; a tab is fine). */
function isPlain(line: string): boolean {
  return printableLine(line) === line;
}
