import { DEFAULT_MAX_MESSAGE_SIZE } from "../../transports/ndjson.js";

/**
 * Cuts a byte stream into lines for observation only (tap): the bytes themselves are forwarded
 * untouched elsewhere. NdjsonDecoder is not used because an observer needs the text of every
 * line, including the ones that are not JSON (to record and report them), which the decoder
 * does not hand out. A line longer than `maxLineSize` is reported by size and not kept.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingSize = 0;
  private oversized = false;

  constructor(
    private readonly onLine: (text: string) => void,
    private readonly onOversized: (size: number) => void,
    private readonly maxLineSize = DEFAULT_MAX_MESSAGE_SIZE,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) break;
      this.append(chunk.subarray(start, newline));
      this.finishLine();
      start = newline + 1;
    }
    if (start < chunk.length) this.append(chunk.subarray(start));
  }

  /** End of stream: a last line without its newline still counts. */
  end(): void {
    if (this.pendingSize > 0 || this.oversized) this.finishLine();
  }

  private append(slice: Buffer): void {
    this.pendingSize += slice.length;
    if (this.oversized) return;
    if (this.pendingSize > this.maxLineSize) {
      this.oversized = true;
      this.pending = [];
      return;
    }
    // Copied: the chunk may be reused by the stream after this call.
    if (slice.length > 0) this.pending.push(Buffer.from(slice));
  }

  private finishLine(): void {
    const size = this.pendingSize;
    if (this.oversized) {
      this.onOversized(size);
    } else if (size > 0) {
      let text = Buffer.concat(this.pending, size).toString("utf8");
      if (text.endsWith("\r")) text = text.slice(0, -1);
      if (text.trim() !== "") this.onLine(text);
    }
    this.pending = [];
    this.pendingSize = 0;
    this.oversized = false;
  }
}
