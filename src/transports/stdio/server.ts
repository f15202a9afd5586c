import type { Readable, Writable } from "node:stream";
import type { JsonRpcMessage } from "../../jsonrpc/types.js";
import type { CloseInfo, Transport, TransportReceiver } from "../../protocol/transport.js";
import { StreamTransport } from "../stream.js";
import { redirectConsoleToStderr } from "./console-redirect.js";
import { guardStdout, protocolWrite } from "./stdout-guard.js";

export interface StdioServerTransportOptions {
  /** Where messages are read from (default `process.stdin`). */
  input?: Readable;
  /** Where messages are written (default `process.stdout`). Nothing else may write there. */
  output?: Writable;
  /** Largest incoming line in bytes; longer lines are dropped and reported as frame errors. */
  maxMessageSize?: number;
  /**
   * While started, send what `console.log`, `info`, `debug`, `dir` and `dirxml` print (and so
   * `table`, `group`, `count`, `time*`) to stderr, so stray logging cannot corrupt the protocol
   * stream. Restored on close. Default true.
   */
  redirectConsole?: boolean;
  /**
   * While started, send anything else written with `process.stdout.write` (a library, a handler,
   * a stream piped into stdout) to stderr; the transport keeps the real stdout for protocol.
   * Only when `output` is process.stdout. Restored on close. Default true.
   */
  guardStdout?: boolean;
  /**
   * Treat SIGINT and SIGTERM like end of input: stop reading and let the receiver finish its
   * work and close. A second signal while shutting down forces close(). Default true.
   */
  handleSignals?: boolean;
  /** After this long without an incoming message, behave as on end of input. Default off. */
  idleTimeoutMs?: number;
  /** How long close() waits for queued output to reach stdout (default 5 s, see StreamTransport). */
  flushTimeoutMs?: number;
}

const SHUTDOWN_SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * The server end of the stdio binding: newline-delimited JSON-RPC from stdin, to stdout.
 *
 * End of input (EOF, a shutdown signal or the idle timeout) stops reading and calls the
 * receiver's `ended()`; replies can still be sent until the receiver calls close(). close()
 * flushes stdout (it is never ended: the process owns it), releases stdin, and removes every
 * listener, signal handler and timer, so a process whose only work was this transport exits on
 * its own afterwards. If stdout breaks (EPIPE: the client went away), the transport closes with
 * the error in its CloseInfo instead of crashing the process.
 */
export class StdioServerTransport implements Transport {
  readonly kind = "stdio" as const;
  readonly closed: Promise<CloseInfo>;
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly options: StdioServerTransportOptions;
  private readonly stream: StreamTransport;
  private receiver: TransportReceiver | undefined;
  private inputEnded = false;
  private closing = false;
  private cleanedUp = false;
  private outputFailed = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private restoreConsole: (() => void) | undefined;
  private releaseStdout: (() => void) | undefined;
  private signalsInstalled = false;

  constructor(options: StdioServerTransportOptions = {}) {
    const idle = options.idleTimeoutMs;
    if (idle !== undefined && !(idle >= 0 && idle < Number.POSITIVE_INFINITY)) {
      throw new RangeError("idleTimeoutMs must be a non-negative finite number (0 = off)");
    }
    this.options = options;
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.stream = new StreamTransport(this.input, this.output, {
      // Taken before start() may guard process.stdout: protocol keeps the real write.
      write: protocolWrite(this.output),
      maxMessageSize: options.maxMessageSize,
      flushTimeoutMs: options.flushTimeoutMs,
      endOutput: false,
      release: this.releaseInput,
      // Replies to the requests of one turn go out in one write; process.exit() within the
      // turn still sends them (onExit).
      coalesceWrites: true,
    });
    this.closed = this.stream.closed;
  }

  start(receiver: TransportReceiver): void {
    if (this.receiver) throw new Error("transport already started");
    this.receiver = receiver;
    // Our own listener, kept for the transport's lifetime: process.stdout revives itself after an
    // EPIPE and emits "error" again on the next failed write, which would crash the process once
    // StreamTransport's one-shot listener is spent.
    this.output.on("error", this.onOutputError);
    process.on("exit", this.onExit);
    if (this.options.redirectConsole !== false) this.restoreConsole = redirectConsoleToStderr();
    if (this.options.guardStdout !== false && this.output === process.stdout) {
      this.releaseStdout = guardStdout();
    }
    if (this.options.handleSignals !== false) {
      for (const signal of SHUTDOWN_SIGNALS) process.on(signal, this.onSignal);
      this.signalsInstalled = true;
    }
    this.armIdleTimer();
    this.stream.start({
      message: (message, context) => {
        if (this.inputEnded) return;
        this.armIdleTimer();
        receiver.message(message, context);
      },
      frameError: (error) => {
        if (this.inputEnded) return;
        this.armIdleTimer();
        receiver.frameError?.(error);
      },
      ended: () => this.endInput(),
      closed: (info) => {
        this.cleanUp();
        receiver.closed?.(info);
      },
    });
  }

  send(message: JsonRpcMessage): Promise<void> {
    return this.stream.send(message);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.clearIdleTimer();
    await this.stream.close();
    // Also covers a transport closed before start(), whose receiver hook never runs.
    this.cleanUp();
  }

  /** EOF, a signal or the idle timeout: read nothing more and let the receiver wind down. */
  private endInput(): void {
    if (this.inputEnded || this.closing) return;
    this.inputEnded = true;
    this.clearIdleTimer();
    // After real EOF this is a no-op; after a signal or timeout it stops stdin from being read
    // (process.stdin stops its handle once paused, so it no longer keeps the process alive).
    this.input.pause();
    if (this.receiver?.ended) this.receiver.ended();
    else void this.close();
  }

  private readonly onSignal = (): void => {
    // The first signal asks for a graceful end; one that arrives while we are already winding
    // down (after EOF, idle timeout or an earlier signal) means "stop waiting".
    if (this.inputEnded || this.closing) void this.close();
    else this.endInput();
  };

  private readonly onOutputError = (): void => {
    // StreamTransport turns the first error into a close with that error; we only remember it.
    this.outputFailed = true;
  };

  private armIdleTimer(): void {
    const ms = this.options.idleTimeoutMs;
    if (!ms || this.inputEnded || this.closing) return;
    if (this.idleTimer) {
      this.idleTimer.refresh();
    } else {
      this.idleTimer = setTimeout(() => this.endInput(), ms);
      // The idle timeout ends an otherwise live process; it must never be what keeps one alive.
      this.idleTimer.unref();
    }
  }

  private clearIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** Called by StreamTransport when the channel closes: stdin must stop holding the process. */
  private readonly releaseInput = (): void => {
    this.input.pause();
    this.input.destroy();
  };

  /** process.exit() before the gathered replies went out: out they go (pipes write at once). */
  private readonly onExit = (): void => this.stream.flushWrites();

  private cleanUp(): void {
    if (this.cleanedUp) return;
    this.cleanedUp = true;
    this.clearIdleTimer();
    if (this.signalsInstalled) {
      for (const signal of SHUTDOWN_SIGNALS) process.off(signal, this.onSignal);
      this.signalsInstalled = false;
    }
    this.restoreConsole?.();
    this.restoreConsole = undefined;
    this.releaseStdout?.();
    this.releaseStdout = undefined;
    this.stream.flushWrites();
    process.off("exit", this.onExit);
    // A broken stdout stays broken, and bytes still queued after a flush timeout may fail later:
    // in both cases keep swallowing its errors rather than let a late EPIPE crash the process.
    if (!this.outputFailed && this.output.writableLength === 0) {
      this.output.off("error", this.onOutputError);
    }
  }
}
