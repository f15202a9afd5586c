/**
 * Writing a Server-Sent Events response body: one JSON-RPC message per `message` event, comment
 * lines as keep-alives, and backpressure from whoever reads the stream (the HTTP layer).
 */

import type { JsonRpcMessage } from "../../jsonrpc/types.js";
import { unref } from "../../platform/scheduling.js";

const encoder = new TextEncoder();
/** Bytes buffered before writers are asked to wait for the reader. */
const HIGH_WATER_MARK = 64 * 1024;

/**
 * One SSE event carrying a JSON-RPC message, with an event id when the stream is resumable.
 * JSON text never contains a raw newline.
 */
export function formatSseEvent(message: JsonRpcMessage, id?: string): string {
  const idLine = id === undefined ? "" : `id: ${id}\n`;
  return `${idLine}event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * The priming event of a resumable stream: an id and empty data (clients keep the id as their
 * cursor but dispatch nothing), plus the reconnection delay clients must honour.
 */
export function formatPrimingEvent(id: string, retryMs: number): string {
  return `id: ${id}\nretry: ${Math.max(0, Math.round(retryMs))}\ndata: \n\n`;
}

/**
 * What one SSE stream may hold for a reader that does not keep up, before its owner ends it
 * (a listen stream, a POST's stream) or drops the connection (a resumable legacy stream). The
 * bound is checked before each event, so one event larger than it still goes out whole.
 */
export const DEFAULT_MAX_BACKLOG_BYTES = 1024 * 1024;

/** A comment line: ignored by parsers, but it keeps idle proxies and clients from timing out. */
export const SSE_KEEP_ALIVE = ":\n\n";

interface SseStreamOptions {
  /** Interval of keep-alive comments (ms); 0 turns them off. */
  keepAliveMs: number;
  /** Called once when the reader goes away before the stream was ended (client disconnect). */
  onCancel(): void;
}

export class SseStream {
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private finished = false;
  private keepAlive: NodeJS.Timeout | undefined;
  private waiters: Array<() => void> = [];

  constructor(options: SseStreamOptions) {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => this.wake(),
        cancel: () => {
          if (this.finished) return;
          this.stop();
          options.onCancel();
        },
      },
      new ByteLengthQueuingStrategy({ highWaterMark: HIGH_WATER_MARK }),
    );
    if (options.keepAliveMs > 0) {
      this.keepAlive = setInterval(() => this.enqueue(SSE_KEEP_ALIVE), options.keepAliveMs);
      unref(this.keepAlive);
    }
  }

  get ended(): boolean {
    return this.finished;
  }

  /**
   * Bytes written but not yet taken by the reader. A reader that stops reading makes this grow
   * with every write; owners compare it with their bound (see DEFAULT_MAX_BACKLOG_BYTES).
   */
  get backlog(): number {
    if (this.finished) return 0;
    return HIGH_WATER_MARK - (this.controller.desiredSize ?? HIGH_WATER_MARK);
  }

  /** Writes one message; resolves when the reader has room for more. */
  write(message: JsonRpcMessage, id?: string): Promise<void> {
    return this.writeText(formatSseEvent(message, id));
  }

  /** Writes preformatted SSE text (whole events); resolves when the reader has room for more. */
  writeText(text: string): Promise<void> {
    if (!this.enqueue(text)) return Promise.resolve();
    if ((this.controller.desiredSize ?? 0) > 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Ends the stream normally (after the final response). */
  end(): void {
    if (this.finished) return;
    this.stop();
    try {
      this.controller.close();
    } catch {
      // Already errored or cancelled.
    }
  }

  private enqueue(text: string): boolean {
    if (this.finished) return false;
    try {
      this.controller.enqueue(encoder.encode(text));
      return true;
    } catch {
      return false;
    }
  }

  private stop(): void {
    this.finished = true;
    clearInterval(this.keepAlive);
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
