/**
 * A stdio MCP server subprocess driven with raw bytes: the hardening tests write whatever they
 * like to its stdin (broken JSON, huge lines, no final newline) and read the lines it answers.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

// biome-ignore lint/suspicious/noExplicitAny: replies read off the wire are inspected loosely
export type Wire = any;

/** The example server, resolved from this file's compiled location so any outDir works. */
export const EXAMPLE_SERVER = fileURLToPath(
  new URL("../../examples/stdio-server.js", import.meta.url),
);

export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

export class RawStdioServer {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every line the server wrote to stdout, parsed (or the raw text when it is not JSON). */
  readonly replies: Wire[] = [];
  stderr = "";
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private partial = "";
  private waiters: Array<() => void> = [];

  constructor(script = EXAMPLE_SERVER) {
    this.child = spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (text: string) => this.onStdout(text));
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (text: string) => {
      // Keep only a tail: the server logs every bad frame.
      this.stderr = (this.stderr + text).slice(-16_384);
    });
    // A write racing the child's exit must fail quietly; the test sees the exit instead.
    this.child.stdin.on("error", () => {});
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        resolve({ code, signal });
        this.wake();
      });
    });
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Writes raw text or bytes; resolves once the pipe took them (waits for drain). */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.child.stdin.write(data, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Writes one line (adds the newline). */
  line(text: string): Promise<void> {
    return this.write(`${text}\n`);
  }

  /** Resolves with the first reply (from the start) matching `predicate`. */
  async reply(predicate: (reply: Wire) => boolean, what: string, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.replies.find(predicate);
      if (found !== undefined) return found;
      if (!this.alive) throw new Error(`server exited before ${what}; stderr: ${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The reply for request `id`. */
  replyTo(id: string | number | null, timeoutMs?: number): Promise<Wire> {
    return this.reply(
      (reply) => reply?.id === id && !("method" in reply),
      `reply to ${JSON.stringify(id)}`,
      timeoutMs,
    );
  }

  /** Closes stdin (EOF) and waits for the process to exit; SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.alive) this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  private onStdout(text: string): void {
    this.partial += text;
    let newline = this.partial.indexOf("\n");
    while (newline !== -1) {
      const line = this.partial.slice(0, newline);
      this.partial = this.partial.slice(newline + 1);
      try {
        this.replies.push(JSON.parse(line));
      } catch {
        this.replies.push(line);
      }
      newline = this.partial.indexOf("\n");
    }
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/** `[[[…]]]` nested `depth` levels. */
export function deepArray(depth: number): string {
  return "[".repeat(depth) + "]".repeat(depth);
}
