import { clearScreenDown, cursorTo, type Interface } from "node:readline";
import { printable } from "../../text/printable.js";

/**
 * Where the shell writes. On a terminal, text that arrives while the user is typing (results of
 * background requests, notifications) is printed above the input line, and the prompt with the
 * half-typed line is drawn again below it. Without a terminal, output is plain lines. All of it
 * is made printable: results, logs and errors quote the server (see core/terminal.ts).
 */
export class ShellConsole {
  readonly tty: boolean;
  private rl: Interface | undefined;

  constructor(tty: boolean) {
    this.tty = tty;
  }

  attach(rl: Interface | undefined): void {
    this.rl = rl;
  }

  out(text: string): void {
    this.write(process.stdout, text);
  }

  err(text: string): void {
    this.write(process.stderr, text);
  }

  private write(stream: NodeJS.WriteStream, text: string): void {
    const safe = printable(text);
    const line = safe.endsWith("\n") ? safe : `${safe}\n`;
    const rl = this.rl;
    if (!this.tty || rl === undefined) {
      stream.write(line);
      return;
    }
    // Wipe the prompt line (and any wrapped continuation), print, then redraw what was typed.
    cursorTo(process.stdout, 0);
    clearScreenDown(process.stdout);
    stream.write(line);
    rl.prompt(true);
  }
}
