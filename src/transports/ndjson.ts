/**
 * Newline-delimited JSON-RPC framing, bounded, as stdio and sockets use it.
 *
 * @module mcpwire/transports/ndjson
 */
import type { Writable } from "node:stream";
import { parseMessage } from "../jsonrpc/classify.js";
import { LocalError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../jsonrpc/types.js";
import { macrotask } from "../platform/scheduling.js";
import type { FrameError } from "../protocol/transport.js";

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
const SPACE = 0x20;
const TAB = 0x09;
/** The UTF-8 byte order mark, which some Windows tools put at the start of a stream. */
const BYTE_ORDER_MARK = Buffer.from([0xef, 0xbb, 0xbf]);
const LONE_CARRIAGE_RETURN = Buffer.from([CARRIAGE_RETURN]);
const EMPTY = Buffer.alloc(0);
/**
 * Up to this many bytes of complete lines are decoded to text in one call. Beyond it, lines are
 * decoded one by one, so a huge chunk full of oversized lines is never turned into a string.
 */
const WHOLE_DECODE_MAX = 1024 * 1024;
/** Partial lines shorter than this are copied, so a retained slice cannot pin a whole chunk. */
const COPY_BELOW = 4096;

/**
 * Incremental newline-delimited JSON-RPC decoder, linear in the input: no byte is searched again
 * when later chunks arrive, and a partial line is kept as a list of slices that is joined once,
 * when its newline arrives. Lines are decoded as UTF-8 only when complete, so a character split
 * between chunks is never damaged.
 *
 * A line's size is its bytes without the terminator ("\n" or "\r\n"). A line larger than
 * `maxMessageSize` is dropped up to its newline, never buffered past the limit, and reported once.
 */
export class NdjsonDecoder {
  readonly maxMessageSize: number;
  private readonly sink: NdjsonSink;
  /** Slices of the current incomplete line, without a trailing carriage return (see below). */
  private pending: Buffer[] = [];
  private pendingSize = 0;
  /** True while skipping the rest of an oversized line; `discardedSize` counts its bytes. */
  private discarding = false;
  private discardedSize = 0;
  /**
   * The last byte seen was a carriage return. It is held back until the next byte shows whether
   * it ends the line ("\r\n") or belongs to it, so that where chunks split a line never changes
   * its size, and a line of exactly the limit is accepted however it arrives.
   */
  private heldCarriageReturn = false;
  /** Bytes of a byte order mark matched so far at stream start; -1 once past the start. */
  private byteOrderMarkMatched = 0;

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
    if (this.byteOrderMarkMatched >= 0) chunk = this.skipByteOrderMark(chunk);
    if (chunk.length === 0) return;
    let start = 0;
    if (this.heldCarriageReturn) {
      this.heldCarriageReturn = false;
      if (chunk[0] === NEWLINE) {
        // "\r\n": the held carriage return was the terminator, not content.
        this.completeLine(chunk, 0, 0);
        start = 1;
      } else {
        this.appendToLine(LONE_CARRIAGE_RETURN, 0, 1);
      }
    }
    if (this.pendingSize > 0 || this.discarding) {
      // The first newline finishes the line begun in earlier chunks.
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.holdPartial(chunk, start);
        return;
      }
      this.completeLine(chunk, start, newline);
      start = newline + 1;
    }
    const lastNewline = chunk.lastIndexOf(NEWLINE);
    if (lastNewline >= start) {
      if (lastNewline - start < WHOLE_DECODE_MAX)
        this.decodeCompleteLines(chunk, start, lastNewline);
      else this.decodeLineByLine(chunk, start, lastNewline);
      start = lastNewline + 1;
    }
    if (start < chunk.length) this.holdPartial(chunk, start);
  }

  /** End of stream: a final line without a newline is still delivered. Safe to call twice. */
  end(): void {
    if (this.byteOrderMarkMatched > 0) {
      // The stream ended inside something that looked like a byte order mark: it was content.
      this.appendToLine(BYTE_ORDER_MARK, 0, this.byteOrderMarkMatched);
    }
    this.byteOrderMarkMatched = -1;
    // A carriage return right before end of stream counts as a line end, like "\r\n".
    this.heldCarriageReturn = false;
    if (this.discarding || this.pendingSize > 0) this.completeLine(EMPTY, 0, 0);
  }

  /** Drops a byte order mark at the very start of the stream, even when chunks split it. */
  private skipByteOrderMark(chunk: Buffer): Buffer {
    const matchedBefore = this.byteOrderMarkMatched;
    let matched = matchedBefore;
    let index = 0;
    while (matched < 3 && index < chunk.length && chunk[index] === BYTE_ORDER_MARK[matched]) {
      matched++;
      index++;
    }
    if (matched === 3) {
      this.byteOrderMarkMatched = -1;
      return chunk.subarray(index);
    }
    if (index === chunk.length) {
      // Still a possible byte order mark: wait for the next chunk to decide.
      this.byteOrderMarkMatched = matched;
      return EMPTY;
    }
    this.byteOrderMarkMatched = -1;
    // Not a byte order mark: give back the bytes held from earlier chunks.
    return matchedBefore === 0
      ? chunk
      : Buffer.concat([BYTE_ORDER_MARK.subarray(0, matchedBefore), chunk]);
  }

  /** Keeps the tail of a chunk that has no newline yet. */
  private holdPartial(chunk: Buffer, start: number): void {
    let end = chunk.length;
    if (chunk[end - 1] === CARRIAGE_RETURN) {
      this.heldCarriageReturn = true;
      end -= 1;
    }
    if (end > start) this.appendToLine(chunk, start, end);
  }

  private appendToLine(chunk: Buffer, start: number, end: number): void {
    const size = end - start;
    if (this.discarding) {
      this.discardedSize += size;
      return;
    }
    if (this.pendingSize + size > this.maxMessageSize) {
      this.discarding = true;
      this.discardedSize = this.pendingSize + size;
      this.pending = [];
      this.pendingSize = 0;
      return;
    }
    const slice = chunk.subarray(start, end);
    this.pending.push(size < COPY_BELOW ? Buffer.from(slice) : slice);
    this.pendingSize += size;
  }

  /**
   * Lines that lie wholly inside [start, lastNewline], decoded to text in one go: one UTF-8
   * decode per chunk is markedly cheaper than one per small line. Bytes and text are scanned in
   * step (a newline byte always decodes to "\n", even next to invalid UTF-8), so every size is
   * still exact in bytes.
   */
  private decodeCompleteLines(chunk: Buffer, start: number, lastNewline: number): void {
    const text = chunk.toString(undefined, start, lastNewline + 1);
    let byteStart = start;
    let charStart = 0;
    while (byteStart <= lastNewline) {
      const byteNewline = chunk.indexOf(NEWLINE, byteStart);
      const charNewline = text.indexOf("\n", charStart);
      let byteEnd = byteNewline;
      let charEnd = charNewline;
      if (byteEnd > byteStart && chunk[byteEnd - 1] === CARRIAGE_RETURN) {
        byteEnd -= 1;
        charEnd -= 1;
      }
      const size = byteEnd - byteStart;
      if (size > this.maxMessageSize) {
        this.sink.frameError({ kind: "oversized", size, limit: this.maxMessageSize });
      } else if (size > 0) {
        this.deliver(text.slice(charStart, charEnd), size);
      }
      byteStart = byteNewline + 1;
      charStart = charNewline + 1;
    }
  }

  /** The same for a huge stretch, which must not be decoded whole when its lines are oversized. */
  private decodeLineByLine(chunk: Buffer, start: number, lastNewline: number): void {
    while (start <= lastNewline) {
      const newline = chunk.indexOf(NEWLINE, start);
      this.completeLine(chunk, start, newline);
      start = newline + 1;
    }
  }

  /** Finishes the line made of what is pending plus chunk[start, newline). */
  private completeLine(chunk: Buffer, start: number, newline: number): void {
    let end = newline;
    if (end > start && chunk[end - 1] === CARRIAGE_RETURN) end -= 1;
    if (this.discarding) {
      const size = this.discardedSize + (end - start);
      this.discarding = false;
      this.discardedSize = 0;
      this.sink.frameError({ kind: "oversized", size, limit: this.maxMessageSize });
      return;
    }
    const size = this.pendingSize + (end - start);
    if (size === 0) return;
    if (size > this.maxMessageSize) {
      // Checked before joining, so an oversized line is never assembled in memory.
      this.pending = [];
      this.pendingSize = 0;
      this.sink.frameError({ kind: "oversized", size, limit: this.maxMessageSize });
      return;
    }
    let text: string;
    if (this.pendingSize === 0) {
      text = chunk.toString(undefined, start, end);
    } else {
      this.pending.push(chunk.subarray(start, end));
      text = Buffer.concat(this.pending, size).toString();
      this.pending = [];
      this.pendingSize = 0;
    }
    this.deliver(text, size);
  }

  private deliver(text: string, size: number): void {
    const result = parseMessage(text);
    if (result.ok) {
      this.sink.message(result.message);
    } else if (!isBlank(text)) {
      this.sink.frameError({ kind: "invalid", failure: result, size, excerpt: text.slice(0, 200) });
    }
  }
}

/**
 * Only JSON's own insignificant whitespace makes a line blank. String.prototype.trim would also
 * swallow a stray byte order mark or other Unicode spaces, which are garbage on the wire.
 */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== SPACE && code !== TAB && code !== CARRIAGE_RETURN) return false;
  }
  return true;
}

/** JSON leaves these raw; escaped they mean the same and survive Unicode-aware line splitters. */
const UNICODE_LINE_BREAKS = /[\u2028\u2029]/g;

/**
 * One message as it goes on the wire: a JSON text and "\n". JSON.stringify already escapes every
 * control character, so the text never holds "\n" or "\r"; U+2028 and U+2029 are escaped too,
 * because readers that split on Unicode line breaks (Python's str.splitlines, say) would
 * otherwise cut the frame in two.
 */
export function encodeMessage(message: JsonRpcMessage): string {
  return `${lineText(message)}\n`;
}

/** encodeMessage without the newline. */
function lineText(message: JsonRpcMessage): string {
  const json: string | undefined = JSON.stringify(message);
  if (typeof json !== "string") throw new TypeError("message does not serialise to JSON");
  // Two plain character searches: cheaper than a regex test, and nothing to do in the usual case.
  if (!json.includes("\u2028") && !json.includes("\u2029")) return json;
  return json.replace(UNICODE_LINE_BREAKS, escapeLineBreak);
}

function escapeLineBreak(character: string): string {
  return character === "\u2028" ? "\\u2028" : "\\u2029";
}

/**
 * From this many characters on, a line's text and its newline are written separately: joined,
 * the stream would first copy the whole text into one flat string (another 8 MiB for an 8 MiB
 * message, alive until the write completes).
 */
const NEWLINE_APART_FROM = 64 * 1024;

/** coalesce: at most this many lines per write (see NdjsonWriter.put). */
const GATHER_LINES = 16;

interface QueuedWrite {
  /** The line without its newline; null once handed to the stream and only the drain is awaited. */
  text: string | null;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * Writes messages to a stream one whole line at a time, in order. When the stream reports it is
 * full, further lines wait for `drain` instead of piling into the stream's own buffer.
 */
/** A writable stream's `write`, as the writer calls it (text, optionally a callback). */
export type StreamWrite = (
  this: Writable,
  chunk: string,
  callback?: (error?: Error | null) => void,
) => boolean;

export interface NdjsonWriterOptions {
  /**
   * Gathers the lines written in one turn of the event loop into one write to the stream, made
   * on the next macrotask (or at once every GATHER_LINES lines): many messages in flight then
   * cost a few pipe writes, not one each. The
   * lines are joined into one string, not corked: a corked stream hands them on as a writev of
   * separate strings, about 3k more instructions a line in Node. A process that may exit within
   * the turn calls flush() on its way out.
   */
  coalesce?: boolean;
}

export class NdjsonWriter {
  private readonly stream: Writable;
  /** The stream's write method, taken once (see the constructor). */
  private readonly writeToStream: StreamWrite;
  private readonly queue: QueuedWrite[] = [];
  private waitingForDrain = false;
  private failure: Error | undefined;
  private readonly coalesce: boolean;
  /** coalesce: the lines of this turn, each with its newline, not yet handed to the stream. */
  private gathered = "";
  private flushScheduled = false;
  /** coalesce: how many lines are in `gathered`. */
  private gatheredLines = 0;
  /** coalesce: more than this gathered goes to the stream at once (its own buffer's size). */
  private readonly gatherLimit: number;

  /**
   * `write` is the stream's write method to use, by default the one it has now. The stdio server
   * passes the one process.stdout had before its guard sent later `write` calls to stderr.
   */
  constructor(
    stream: Writable,
    write: StreamWrite = stream.write,
    options: NdjsonWriterOptions = {},
  ) {
    this.stream = stream;
    this.writeToStream = write;
    this.coalesce = options.coalesce === true;
    this.gatherLimit = stream.writableHighWaterMark || 16 * 1024;
    stream.on("drain", this.onDrain);
    stream.on("error", this.onStreamGone);
    stream.on("close", this.onStreamGone);
  }

  write(message: JsonRpcMessage): Promise<void> {
    // A stream ended or destroyed before we saw its 'close' would otherwise swallow the line
    // without ever emitting 'drain', leaving the promise pending forever.
    if (!this.failure && !this.stream.writable) this.onStreamGone(this.stream.errored);
    if (this.failure) return Promise.reject(this.failure);
    let text: string;
    try {
      text = lineText(message);
    } catch (cause) {
      return Promise.reject(new LocalError("transport", "message is not serialisable", { cause }));
    }
    if (this.waitingForDrain) {
      return new Promise((resolve, reject) => this.queue.push({ text, resolve, reject }));
    }
    if (this.put(text)) return Promise.resolve();
    this.waitingForDrain = true;
    return new Promise((resolve, reject) => this.queue.unshift({ text: null, resolve, reject }));
  }

  /** Hands one line to the stream; false when the stream asks to wait for `drain`. */
  private put(text: string): boolean {
    if (this.coalesce && text.length < NEWLINE_APART_FROM) {
      this.gathered += `${text}\n`;
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        macrotask(this.flushGathered);
      }
      // Every GATHER_LINES lines go at once, so that the peer starts on them while this side
      // makes the rest: two gathering peers with many calls in flight would otherwise trade
      // whole batches, each idle while the other works.
      if (++this.gatheredLines === GATHER_LINES) return this.handOver();
      // Past the stream's buffer size the stream decides, as it would have for a corked write.
      return this.gathered.length < this.gatherLimit || this.handOver();
    }
    // Not gathered: what was goes first, so the lines keep their order.
    if (this.gathered !== "") this.handOver();
    if (text.length < NEWLINE_APART_FROM) return this.writeToStream.call(this.stream, `${text}\n`);
    this.writeToStream.call(this.stream, text);
    return this.writeToStream.call(this.stream, "\n");
  }

  /** Resolves once every queued line has been handed to the stream (or the stream failed). */
  idle(): Promise<void> {
    this.flush();
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
    // Lines gathered this turn still go out, as corked ones did when the stream was uncorked.
    if (this.stream.writable) this.flush();
    this.gathered = "";
    this.gatheredLines = 0;
    this.stream.off("drain", this.onDrain);
    this.stream.off("error", this.onStreamGone);
    this.stream.off("close", this.onStreamGone);
    this.fail(reason);
  }

  /** Hands what this turn gathered to the stream now (coalesce). */
  flush(): void {
    if (this.gathered !== "" && !this.failure && this.handOver() === false) {
      this.waitingForDrain = true;
    }
  }

  /** Writes the gathered lines; false when the stream asks to wait for `drain`. */
  private handOver(): boolean {
    const text = this.gathered;
    this.gathered = "";
    this.gatheredLines = 0;
    return this.writeToStream.call(this.stream, text);
  }

  private readonly flushGathered = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  private readonly onDrain = (): void => {
    this.waitingForDrain = false;
    while (this.queue.length > 0 && !this.waitingForDrain) {
      const next = this.queue.shift()!;
      if (next.text === null || this.put(next.text)) {
        next.resolve();
      } else {
        this.waitingForDrain = true;
        next.text = null;
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
