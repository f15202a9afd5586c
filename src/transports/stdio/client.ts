import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import spawn from "cross-spawn";
import { LocalError } from "../../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../../jsonrpc/types.js";
import type { CloseInfo, Transport, TransportReceiver } from "../../protocol/transport.js";
import { printable } from "../../text/printable.js";
import { StreamTransport } from "../stream.js";
import { childEnvironment } from "./env.js";
import {
  signalTree,
  spawnsProcessGroups,
  terminateLeftovers,
  trackTree,
  untrackTree,
} from "./process-tree.js";

export interface StdioShutdownOptions {
  /** After closing the child's stdin, how long to wait for it to exit (default 2000 ms). */
  stdinCloseWaitMs?: number;
  /** After SIGTERM, how long to wait before SIGKILL (default 2000 ms). */
  sigtermWaitMs?: number;
}

export interface StdioClientOptions {
  command: string;
  args?: string[];
  cwd?: string;
  /** Added to the inherited environment (see env.ts for what is inherited by default). */
  env?: Record<string, string>;
  /** Pass the whole of process.env to the child instead of a safe allowlist. */
  inheritEnv?: boolean;
  /** What to do with the child's stderr (default "pipe": drained, tail kept, onStderr called). */
  stderr?: "inherit" | "ignore" | "pipe";
  /** Receives the child's stderr as text when it is piped. Must not throw. */
  onStderr?: (text: string) => void;
  /** Largest message accepted from the child, in bytes. */
  maxMessageSize?: number;
  shutdown?: StdioShutdownOptions;
  /** How many trailing bytes of stderr to keep for error messages (default 8192). */
  stderrTailBytes?: number;
  /**
   * Kill the child's process group if this process dies without closing it (even by SIGKILL), on
   * POSIX systems with /bin/sh (see orphan-watchdog.ts). Default true.
   */
  dieWithParent?: boolean;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * The server process ended without being asked to. Carries its exit status and last stderr:
 * `stderr` as the server wrote it, the message with that tail made printable (it is meant for
 * a person, and the server's escape sequences have no business on their terminal).
 */
export class ServerExitedError extends LocalError {
  override name = "ServerExitedError";
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;

  constructor(description: string, status: ExitStatus, stderr: string, cause?: unknown) {
    const how =
      status.signal !== null ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
    const trimmed = stderr.trim();
    super("exited", `${description} ${how}${trimmed ? `; stderr:\n${printable(trimmed)}` : ""}`, {
      cause,
    });
    this.code = status.code;
    this.signal = status.signal;
    this.stderr = stderr;
  }
}

export const DEFAULT_STDIN_CLOSE_WAIT_MS = 2000;
export const DEFAULT_SIGTERM_WAIT_MS = 2000;
export const DEFAULT_STDERR_TAIL_BYTES = 8192;
/**
 * After the child exits, how long its last output may take to arrive. Responses written just
 * before a crash and the stderr explaining it are usually still in the pipes.
 */
const EXIT_DRAIN_MS = 250;

/**
 * The client side of the stdio binding: launches an MCP server as a child process and exchanges
 * newline-delimited JSON-RPC with it over its stdin and stdout. Closing follows the spec's
 * shutdown order (end stdin, wait, SIGTERM, wait, SIGKILL), applied to the child's whole process
 * tree. An exit that close() did not ask for closes the channel with a ServerExitedError.
 */
export class StdioClientTransport implements Transport {
  readonly kind = "stdio" as const;
  readonly closed: Promise<CloseInfo>;
  /** Resolves when the child exits ({ code: null, signal: null } if it never started). */
  readonly exited: Promise<ExitStatus>;
  /** Resolves true once the child is running, false if it could not be started. */
  readonly spawned: Promise<boolean>;

  private readonly options: StdioClientOptions;
  private readonly tail: TailBuffer;
  private child: ChildProcess | undefined;
  private stream: StreamTransport | undefined;
  private receiver: TransportReceiver | undefined;
  private started = false;
  private launched = false;
  private finished = false;
  private closeRequested = false;
  /** True once close() or a broken pipe made us signal the child. */
  private signalled = false;
  private streamFailure: Error | undefined;
  private exitStatus: ExitStatus | undefined;
  private finalError: Error | undefined;
  private stopping: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  /** Reporting an exit nobody asked for (after the last output has drained). */
  private exitReported: Promise<void> | undefined;
  /** Ending leftovers in the process group and releasing pipes, after the child exited. */
  private released: Promise<void> | undefined;
  private resolveClosed!: (info: CloseInfo) => void;
  private resolveExited!: (status: ExitStatus) => void;
  private resolveSpawned!: (ok: boolean) => void;

  constructor(options: StdioClientOptions) {
    this.options = options;
    this.tail = new TailBuffer(options.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES);
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    this.exited = new Promise((resolve) => {
      this.resolveExited = resolve;
    });
    this.spawned = new Promise((resolve) => {
      this.resolveSpawned = resolve;
    });
  }

  /** The child's process id, once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Whether the child was launched successfully (it may have exited since). */
  get hasSpawned(): boolean {
    return this.launched;
  }

  /** Whether the child has exited (or could not be started). */
  get hasExited(): boolean {
    return this.exitStatus !== undefined;
  }

  /** The last `stderrTailBytes` of the child's stderr (empty unless stderr is piped). */
  stderrTail(): string {
    return this.tail.text();
  }

  start(receiver: TransportReceiver): void {
    if (this.started) throw new Error("transport already started");
    this.started = true;
    this.receiver = receiver;
    const { options } = this;
    let child: ChildProcess;
    try {
      const env = childEnvironment({ env: options.env, inheritEnv: options.inheritEnv });
      child = spawn(options.command, options.args ?? [], {
        cwd: options.cwd,
        env,
        stdio: ["pipe", "pipe", options.stderr ?? "pipe"],
        // A new process group on POSIX, so the whole tree can be signalled (process-tree.ts).
        detached: spawnsProcessGroups,
        windowsHide: true,
      });
    } catch (error) {
      // Bad arguments throw synchronously; report them like any other failure to start.
      queueMicrotask(() => this.spawnFailed(error));
      return;
    }
    this.child = child;
    if (child.pid !== undefined) {
      trackTree(child.pid, { dieWithParent: options.dieWithParent !== false });
    }
    child.once("spawn", () => {
      this.launched = true;
      this.resolveSpawned(true);
    });
    child.on("error", this.onChildError);
    child.once("exit", this.onExit);
    const stdin = child.stdin!;
    const stdout = child.stdout!;
    // Failures of the pipes show up as the child's exit or the stream's close; these listeners
    // only keep a late second error from becoming an uncaught exception.
    for (const pipe of [stdin, stdout, child.stderr]) pipe?.on("error", ignore);
    if (child.stderr) this.drainStderr(child.stderr);

    const stream = new StreamTransport(stdout, stdin, {
      maxMessageSize: options.maxMessageSize,
      // Requests in flight together go to the child in one pipe write.
      coalesceWrites: true,
      flushTimeoutMs: options.shutdown?.stdinCloseWaitMs ?? DEFAULT_STDIN_CLOSE_WAIT_MS,
      // Closing the stream closes only stdin (EOF for the child). stdout keeps flowing into the
      // void so a child still writing on its way out never blocks on a full pipe.
      release: () => {
        stdin.destroy();
        stdout.resume();
      },
    });
    this.stream = stream;
    stream.start({
      message: (message, context) => receiver.message(message, context),
      frameError: (error) => receiver.frameError?.(error),
      // The child's exit, not the end of its stdout, is what ends this channel.
      ended: () => {},
      closed: (info) => {
        if (info.error && !this.closeRequested && !this.exitStatus)
          this.onStreamFailure(info.error);
      },
    });
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (!this.started) return Promise.reject(new LocalError("closed", "transport not started"));
    if (this.finalError) return Promise.reject(this.finalError);
    if (this.finished || this.closeRequested) {
      return Promise.reject(new LocalError("closed", "transport closed"));
    }
    if (this.exitStatus) {
      return Promise.reject(new LocalError("exited", `${this.describe()} has exited`));
    }
    return this.stream!.send(message);
  }

  /**
   * Ends the child: close its stdin, wait, SIGTERM the tree, wait, SIGKILL. Resolves once it has
   * exited and every pipe and timer is released. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closeRequested = true;
    if (!this.started) {
      this.started = true;
      this.exitStatus = { code: null, signal: null };
      this.resolveExited(this.exitStatus);
      this.resolveSpawned(false);
      this.finish({});
      return;
    }
    if (!this.exitStatus) await this.stopChild();
    await this.exitReported;
    await this.released;
    this.finish({});
  }

  /** The spec's shutdown order. Resolves when the child has exited. */
  private stopChild(): Promise<void> {
    this.stopping ??= (async () => {
      const shutdown = this.options.shutdown ?? {};
      void this.stream?.close();
      if (
        await settlesWithin(this.exited, shutdown.stdinCloseWaitMs ?? DEFAULT_STDIN_CLOSE_WAIT_MS)
      )
        return;
      const pid = this.child?.pid;
      if (pid === undefined) {
        await this.exited;
        return;
      }
      this.signalled = true;
      await signalTree(pid, "SIGTERM");
      if (await settlesWithin(this.exited, shutdown.sigtermWaitMs ?? DEFAULT_SIGTERM_WAIT_MS))
        return;
      await signalTree(pid, "SIGKILL");
      await this.exited;
    })();
    return this.stopping;
  }

  /** A pipe broke while the child was running: shut it down and report the breakage. */
  private onStreamFailure(error: Error): void {
    this.streamFailure = error;
    void this.stopChild();
  }

  private readonly onChildError = (error: Error & { syscall?: string }): void => {
    // 'error' also reports failed kill() calls; only a failure to launch matters here. cross-spawn
    // reports a missing Windows command as a "spawn <command>" error on an already running shell.
    if (this.exitStatus) return;
    if (this.child?.pid === undefined || error.syscall?.startsWith("spawn")) {
      this.spawnFailed(error);
    }
  };

  private spawnFailed(error: unknown): void {
    if (this.exitStatus) return;
    this.exitStatus = { code: null, signal: null };
    this.resolveExited(this.exitStatus);
    this.resolveSpawned(false);
    const pid = this.child?.pid;
    if (pid !== undefined) untrackTree(pid);
    this.released = (async () => {
      await this.stream?.close();
      await this.releasePipes();
    })();
    const { cwd } = this.options;
    // spawn reports a missing working directory as ENOENT naming the command: say which it was.
    const message =
      cwd !== undefined && (error as NodeJS.ErrnoException).code === "ENOENT" && !existsSync(cwd)
        ? `its working directory ${printable(cwd)} does not exist`
        : error instanceof Error
          ? error.message
          : String(error);
    this.finalError = new LocalError(
      "transport",
      `could not start MCP server "${this.options.command}": ${message}`,
      { cause: error },
    );
    this.finish({ error: this.finalError });
  }

  private readonly onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
    if (this.exitStatus) return;
    const status: ExitStatus = { code, signal };
    this.exitStatus = status;
    this.resolveExited(status);
    const drained = this.outputDrained();
    this.released = this.releaseAfterExit(drained);
    if (this.closeRequested) return;
    this.exitReported = drained.then(() => {
      const failure = this.streamFailure;
      this.finalError =
        failure && this.signalled
          ? new LocalError("transport", `${this.describe()}: ${failure.message}`, {
              cause: failure,
            })
          : new ServerExitedError(this.describe(), status, this.stderrTail(), failure);
      this.finish({ error: this.finalError });
    });
  };

  /** Waits (briefly) for the last stdout and stderr bytes after the child exited. */
  private outputDrained(): Promise<void> {
    const child = this.child!;
    return Promise.all([
      waitForEnd(child.stdout, EXIT_DRAIN_MS),
      waitForEnd(child.stderr, EXIT_DRAIN_MS),
    ]).then(() => {});
  }

  private async releaseAfterExit(drained: Promise<void>): Promise<void> {
    const pid = this.child!.pid!;
    const sigtermWaitMs = this.options.shutdown?.sigtermWaitMs ?? DEFAULT_SIGTERM_WAIT_MS;
    // Grandchildren (the real server behind npx, say) may outlive the child; they go too.
    await Promise.all([terminateLeftovers(pid, sigtermWaitMs), drained]);
    untrackTree(pid);
    await this.stream!.close();
    await this.releasePipes();
  }

  /** Destroys whatever pipe is still open and waits for each to report closed. */
  private async releasePipes(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const pipes = [child.stdin, child.stdout, child.stderr].filter(
      (pipe): pipe is Readable | Writable => pipe !== null,
    );
    await Promise.all(
      pipes.map(
        (pipe) =>
          new Promise<void>((resolve) => {
            if (pipe.closed) return resolve();
            pipe.once("close", () => resolve());
            pipe.destroy();
          }),
      ),
    );
  }

  private drainStderr(stderr: Readable): void {
    const { onStderr } = this.options;
    const decoder = onStderr ? new StringDecoder("utf8") : undefined;
    // Always consumed, even without onStderr: a child blocked writing to a full stderr pipe
    // would stop answering.
    stderr.on("data", (chunk: Buffer) => {
      this.tail.push(chunk);
      if (decoder) {
        const text = decoder.write(chunk);
        if (text) onStderr!(text);
      }
    });
    stderr.once("end", () => {
      const rest = decoder?.end();
      if (rest) onStderr!(rest);
    });
  }

  private describe(): string {
    const pid = this.child?.pid;
    return `MCP server "${this.options.command}"${pid === undefined ? "" : ` (pid ${pid})`}`;
  }

  private finish(info: CloseInfo): void {
    if (this.finished) return;
    this.finished = true;
    this.receiver?.closed?.(info);
    this.resolveClosed(info);
  }
}

/** Keeps the last `limit` bytes written to it, whatever the volume. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (this.limit <= 0) return;
    if (chunk.length >= this.limit) {
      this.chunks = [Buffer.from(chunk.subarray(chunk.length - this.limit))];
      this.size = this.limit;
      return;
    }
    // Copy small chunks so that each one cannot pin a large read buffer in memory.
    this.chunks.push(chunk.length < 4096 ? Buffer.from(chunk) : chunk);
    this.size += chunk.length;
    // Drop whole chunks while what remains still covers the limit.
    while (this.size - this.chunks[0]!.length >= this.limit) {
      this.size -= this.chunks.shift()!.length;
    }
  }

  text(): string {
    const all = Buffer.concat(this.chunks, this.size);
    let start = Math.max(0, all.length - this.limit);
    // Do not begin in the middle of a UTF-8 character.
    while (start < all.length && (all[start]! & 0xc0) === 0x80) start += 1;
    return all.toString("utf8", start);
  }
}

function ignore(): void {}

/** Whether `promise` settles within `ms`; the timer never outlives the wait. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves when `stream` has ended or closed, or after `ms`. */
function waitForEnd(stream: Readable | null, ms: number): Promise<void> {
  if (!stream || stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      stream.off("end", done);
      stream.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stream.once("end", done);
    stream.once("close", done);
  });
}
