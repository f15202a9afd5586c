import type { Readable, Writable } from "node:stream";
import { LocalError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../jsonrpc/types.js";
import type {
  CloseInfo,
  Transport,
  TransportKind,
  TransportReceiver,
} from "../protocol/transport.js";
import {
  NdjsonDecoder,
  type NdjsonDecoderOptions,
  NdjsonWriter,
  type StreamWrite,
} from "./ndjson.js";

export interface StreamTransportOptions extends NdjsonDecoderOptions {
  /**
   * Whether close() ends the output stream (default true). process.stdout cannot really be
   * ended, so the stdio server only flushes it.
   */
  endOutput?: boolean;
  /** How long close() waits for queued output to drain before giving up on it (default 5 s). */
  flushTimeoutMs?: number;
  /**
   * The output's write method to use (default: the one it has when the transport is made). The
   * stdio server passes the one process.stdout had before its guard (stdout-guard.ts).
   */
  write?: StreamWrite;
  /** Gathers the lines of one event-loop turn into one write (see NdjsonWriterOptions). */
  coalesceWrites?: boolean;
  /**
   * Called by close() after the output has been ended, to release whatever else the channel
   * holds (destroy a socket, stop reading stdin). Defaults to destroying the input.
   */
  release?: () => void;
}

/**
 * Newline-delimited JSON-RPC over a readable and a writable byte stream: the shared core of the
 * stdio and socket transports. End of input closes the channel, as EOF does on stdio.
 */
export class StreamTransport implements Transport {
  readonly kind: TransportKind = "stream";
  readonly closed: Promise<CloseInfo>;
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly writeOutput: StreamWrite;
  private readonly writer: NdjsonWriter;
  private readonly options: StreamTransportOptions;
  private receiver: TransportReceiver | undefined;
  private decoder: NdjsonDecoder | undefined;
  private isClosed = false;
  private inputEnded = false;
  private resolveClosed!: (info: CloseInfo) => void;

  constructor(input: Readable, output: Writable, options: StreamTransportOptions = {}) {
    this.input = input;
    this.output = output;
    this.options = options;
    this.writeOutput = options.write ?? output.write;
    this.writer = new NdjsonWriter(output, this.writeOutput, {
      coalesce: options.coalesceWrites === true,
    });
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  start(receiver: TransportReceiver): void {
    if (this.receiver) throw new Error("transport already started");
    this.receiver = receiver;
    const decoder = new NdjsonDecoder(
      {
        message: (message) => receiver.message(message),
        frameError: (error) => receiver.frameError?.(error),
      },
      this.options,
    );
    this.decoder = decoder;
    this.input.on("data", this.onData);
    this.input.once("end", this.onEnd);
    this.input.once("close", this.onEnd);
    // Kept for good (not once): a broken pipe can report errors again after we closed, and an
    // unheard "error" event would crash the process. onError ignores them once closed.
    this.input.on("error", this.onError);
    this.output.on("error", this.onError);
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.isClosed) return Promise.reject(new LocalError("closed", "transport closed"));
    return this.writer.write(message);
  }

  /** With coalesceWrites: writes what this turn gathered now (a process on its way out). */
  flushWrites(): void {
    this.writer.flush();
  }

  async close(): Promise<void> {
    if (!this.isClosed) {
      // Flush what was written, then end the output so the peer sees EOF. A peer that never
      // reads must not hold us forever, hence the bound.
      const flushed = this.writer.idle().then(
        () =>
          new Promise<void>((resolve) => {
            if (this.output.writableEnded || this.output.destroyed) resolve();
            else if (this.options.endOutput === false)
              this.writeOutput.call(this.output, "", () => resolve());
            else this.output.end(resolve);
          }),
      );
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.options.flushTimeoutMs ?? 5000);
      });
      await Promise.race([flushed, timeout]);
      clearTimeout(timer);
      this.finish({});
    }
    await this.closed;
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.decoder!.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  };

  private readonly onEnd = (): void => {
    if (this.inputEnded) return;
    this.inputEnded = true;
    this.input.off("data", this.onData);
    this.decoder?.end();
    if (this.receiver?.ended) this.receiver.ended();
    else void this.close();
  };

  private readonly onError = (error: Error): void => {
    this.finish({ error: new LocalError("transport", error.message, { cause: error }) });
  };

  private finish(info: CloseInfo): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.input.off("close", this.onEnd);
    this.writer.dispose();
    if (this.options.release) this.options.release();
    else this.input.destroy();
    this.receiver?.closed?.(info);
    this.resolveClosed(info);
  }
}
