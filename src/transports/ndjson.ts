import type { Writable } from "node:stream";
import { parseMessage } from "../jsonrpc/classify.js";
import { LocalError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../jsonrpc/types.js";
import type { FrameError } from "./transport.js";

/** 32 MiB: generous for real payloads, small enough that one bad peer cannot exhaust memory. */
export const DEFAULT_MAX_MESSAGE_SIZE = 32 * 1024 * 1024;

export interface NdjsonDecoderOptions {
  /** Largest line in bytes (newline excluded). Pass `Infinity` to explicitly lift the limit. */
  maxMessageSize?: number;
}

export interface NdjsonSink {
  message(message: JsonRpcMessage): void;
  frameError(error: FrameError): void;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const BYTE_ORDER_MARK = "\uFEFF";
const EMPTY = Buffer.alloc(0);

/**
 * Incremental newline-delimited JSON-RPC decoder. Each byte is scanned once: chunks are searched
 * for newlines from where the last search stopped, and a partial line is kept as a list of slices
 * that is joined once, when its newline arrives. Lines are decoded as UTF-8 only when complete,
 * so a character split between chunks is never damaged.
 */
export class NdjsonDecoder {
  readonly maxMessageSize: number;
  private readonly sink: NdjsonSink;
  private pending: Buffer[] = [];
  private pendingSize = 0;
  /** While > 0 we are skipping the rest of an oversized line; counts the bytes skipped. */
  private discarded = 0;
  private atStreamStart = true;

  constructor(sink: NdjsonSink, options: NdjsonDecoderOptions = {}) {
    const limit = options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE;
    if (!(limit > 0)) throw new RangeError("maxMessageSize must be positive (or Infinity)");
    this.maxMessageSize = limit;
    this.sink = sink;
  }

  /** Bytes currently held for an incomplete line (never more than maxMessageSize). */
  get bufferedBytes(): number {
    return this.pendingSize;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) break;
      this.completeLine(chunk, start, newline);
      start = newline + 1;
    }
    if (start < chunk.length) this.holdPartial(chunk, start);
  }

  /** End of stream: a final line without a newline is still delivered. */
  end(): void {
    if (this.discarded > 0 || this.pendingSize > 0) this.completeLine(EMPTY, 0, 0);
  }

  private holdPartial(chunk: Buffer, start: number): void {
    const size = chunk.length - start;
    if (this.discarded > 0) {
      this.discarded += size;
      return;
    }
    if (this.pendingSize + size > this.maxMessageSize) {
      this.discarded = this.pendingSize + size;
      this.pending = [];
      this.pendingSize = 0;
      return;
    }
    // Copy small tails so a retained slice cannot pin a large chunk in memory.
    this.pending.push(size < 4096 ? Buffer.from(chunk.subarray(start)) : chunk.subarray(start));
    this.pendingSize += size;
  }

  private completeLine(chunk: Buffer, start: number, end: number): void {
    if (this.discarded > 0) {
      const size = this.discarded + (end - start);
      this.discarded = 0;
      this.sink.frameError({ kind: "oversized", size, limit: this.maxMessageSize });
      return;
    }
    let line: Buffer;
    if (this.pendingSize === 0) {
      line = chunk.subarray(start, end);
    } else {
      this.pending.push(chunk.subarray(start, end));
      line = Buffer.concat(this.pending, this.pendingSize + (end - start));
      this.pending = [];
      this.pendingSize = 0;
    }
    let size = line.length;
    if (size > 0 && line[size - 1] === CARRIAGE_RETURN) size -= 1;
    if (size === 0) return;
    if (size > this.maxMessageSize) {
      this.sink.frameError({ kind: "oversized", size, limit: this.maxMessageSize });
      return;
    }
    let text = line.toString("utf8", 0, size);
    if (this.atStreamStart) {
      this.atStreamStart = false;
      if (text.startsWith(BYTE_ORDER_MARK)) text = text.slice(1);
    }
    const result = parseMessage(text);
    if (result.ok) {
      this.sink.message(result.message);
    } else if (text.trim() !== "") {
      this.sink.frameError({ kind: "invalid", failure: result, size });
    }
  }
}

/** One message as it goes on the wire: a JSON text (which never holds a raw newline) and "\n". */
export function encodeMessage(message: JsonRpcMessage): string {
  return `${JSON.stringify(message)}\n`;
}

interface QueuedWrite {
  /** null once the line has been handed to the stream and only the drain is awaited. */
  line: string | null;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * Writes messages to a stream one whole line at a time, in order. When the stream reports it is
 * full, further lines wait for `drain` instead of piling into the stream's own buffer.
 */
export class NdjsonWriter {
  private readonly stream: Writable;
  private readonly queue: QueuedWrite[] = [];
  private waitingForDrain = false;
  private failure: Error | undefined;

  constructor(stream: Writable) {
    this.stream = stream;
    stream.on("drain", this.onDrain);
    stream.on("error", this.onStreamGone);
    stream.on("close", this.onStreamGone);
  }

  write(message: JsonRpcMessage): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    let line: string;
    try {
      line = encodeMessage(message);
    } catch (cause) {
      return Promise.reject(new LocalError("transport", "message is not serialisable", { cause }));
    }
    if (this.waitingForDrain) {
      return new Promise((resolve, reject) => this.queue.push({ line, resolve, reject }));
    }
    if (this.stream.write(line)) return Promise.resolve();
    this.waitingForDrain = true;
    return new Promise((resolve, reject) => this.queue.unshift({ line: null, resolve, reject }));
  }

  /** Resolves once every queued line has been handed to the stream (or the stream failed). */
  idle(): Promise<void> {
    if (this.queue.length === 0 || this.failure) return Promise.resolve();
    const last = this.queue[this.queue.length - 1]!;
    return new Promise((resolve) => {
      const { resolve: done, reject: failed } = last;
      last.resolve = () => {
        done();
        resolve();
      };
      last.reject = (error) => {
        failed(error);
        resolve();
      };
    });
  }

  /** Stops watching the stream; queued writes fail. */
  dispose(reason = new LocalError("closed", "transport closed")): void {
    this.stream.off("drain", this.onDrain);
    this.stream.off("error", this.onStreamGone);
    this.stream.off("close", this.onStreamGone);
    this.fail(reason);
  }

  private readonly onDrain = (): void => {
    this.waitingForDrain = false;
    while (this.queue.length > 0 && !this.waitingForDrain) {
      const next = this.queue.shift()!;
      if (next.line === null || this.stream.write(next.line)) {
        next.resolve();
      } else {
        this.waitingForDrain = true;
        next.line = null;
        this.queue.unshift(next);
      }
    }
  };

  private readonly onStreamGone = (error?: unknown): void => {
    const cause = error instanceof Error ? error : undefined;
    this.fail(new LocalError("closed", "output stream closed", { cause }));
  };

  private fail(error: Error): void {
    if (!this.failure) this.failure = error;
    for (const queued of this.queue.splice(0)) queued.reject(this.failure);
  }
}
