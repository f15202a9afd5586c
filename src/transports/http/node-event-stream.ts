/**
 * SSE written straight to a node:http ServerResponse (the fast path's streams, modern and
 * legacy alike): no web stream in between.
 */
import type { ServerResponse } from "node:http";
import type { EventSink } from "./exchange.js";
import { onNextRequest } from "./node-delivery.js";
import { SSE_KEEP_ALIVE } from "./sse.js";

/** What writeText returns when there is nothing to wait for (one promise, not one per write). */
const RESOLVED: Promise<void> = Promise.resolve();

/**
 * SSE written straight to the response. Until the next turn of the event loop nothing goes out:
 * what is written by then (a legacy stream's priming event, a progress event, the final reply)
 * leaves in one socket write with the headers. Then the stream opens (headers, and whatever is
 * waiting) and later text goes out as it is written, one write per run of the microtask queue.
 */
export class NodeEventStream implements EventSink {
  private readonly res: ServerResponse;
  private pending = "";
  /** Whether anything (and so the headers) has gone to the socket. */
  private started = false;
  private ended = false;
  private drained: Promise<void> | undefined;
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(res: ServerResponse, keepAliveMs: number) {
    this.res = res;
    // On the next turn of the event loop, a stream still open sends its headers with what
    // has been written so far, and starts its keep-alive timer. A reply that comes at once,
    // the usual case, has ended the stream by then: one write, no timer.
    setImmediate(() => {
      if (this.ended || res.destroyed) return;
      if (!this.started) {
        if (this.pending !== "") {
          this.flush();
        } else {
          this.started = true;
          res.flushHeaders();
        }
      }
      if (keepAliveMs > 0) {
        this.keepAlive = setInterval(() => void this.writeText(SSE_KEEP_ALIVE), keepAliveMs);
        this.keepAlive.unref();
      }
    });
  }

  /** Text not yet flushed plus what the response and its socket still buffer. */
  get backlog(): number {
    if (this.ended) return 0;
    return this.pending.length + this.res.writableLength;
  }

  writeText(text: string): Promise<void> {
    if (this.ended || this.res.destroyed) return RESOLVED;
    // Before the stream has started, the constructor's first turn flushes (see above).
    if (this.pending === "" && this.started) queueMicrotask(() => this.flush());
    this.pending += text;
    return this.drained ?? RESOLVED;
  }

  end(onDelivered?: () => void): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.keepAlive);
    const text = this.pending;
    this.pending = "";
    if (this.res.destroyed) return;
    // The connection's next request will show the client took all of this (node-delivery.ts);
    // HTTP/1 only: an HTTP/2 client sends requests on its connection without reading answers.
    const { socket, req } = this.res;
    if (onDelivered && socket && req?.httpVersionMajor === 1) onNextRequest(socket, onDelivered);
    if (text === "") this.res.end();
    else this.res.end(text);
  }

  private flush(): void {
    const text = this.pending;
    this.pending = "";
    if (text === "" || this.ended || this.res.destroyed) return;
    this.started = true;
    if (this.res.write(text) || this.drained) return;
    this.drained = new Promise((resolve) => {
      const settle = () => {
        this.res.off("drain", settle);
        this.res.off("close", settle);
        this.drained = undefined;
        resolve();
      };
      this.res.on("drain", settle);
      this.res.on("close", settle);
    });
  }
}
