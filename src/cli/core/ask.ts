/**
 * Questions to the person at the terminal before anything connects (a config file's
 * `${input:…}`, consent to send a variable): asked on stderr, answered on stdin. Ctrl-C ends
 * the command (exit 130), as it would at any other point.
 */
import { createInterface } from "node:readline/promises";
import { printableLine } from "../../text/printable.js";
import { CliError, EXIT_INTERRUPTED } from "./errors.js";
import { writeErr, writePrompt } from "./terminal.js";

const interrupted = () => new CliError("interrupted (Ctrl-C)", EXIT_INTERRUPTED);

/** One line of text, echoed as typed. */
export async function askLine(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const stop = new AbortController();
  rl.once("SIGINT", () => stop.abort());
  try {
    return await rl.question(printableLine(question), { signal: stop.signal });
  } catch (error) {
    if (stop.signal.aborted) throw interrupted();
    throw error;
  } finally {
    rl.close();
  }
}

/** One line typed without echo (a password, a token). */
export function askSecret(question: string): Promise<string> {
  const input = process.stdin;
  // Echo off before the question shows, so nothing typed right after it is echoed.
  input.setRawMode(true);
  input.setEncoding("utf8");
  input.resume();
  writePrompt(question);
  return new Promise<string>((resolve, reject) => {
    let typed = "";
    const finish = (error?: Error) => {
      input.off("data", onData);
      input.setRawMode(false);
      input.pause();
      writeErr("");
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n") return finish();
        if (char === "\u0003") return finish(interrupted());
        if (char === "\u0004" && typed === "") return finish(new CliError("no answer (Ctrl-D)", 1));
        if (char === "\u007f" || char === "\b") typed = typed.slice(0, -1);
        else if (char >= " ") typed += char;
      }
    };
    input.on("data", onData);
  });
}
