/**
 * Where a legacy session's answers go: a web Response (the web-standard handler) or, on the
 * node:http fast path, the ServerResponse itself (node-legacy.ts). A POST's answer is either
 * whole (its JSON reply, or an empty status) or a resumable SSE stream.
 */
import type { JsonRpcResponse } from "../../../jsonrpc/types.js";
import { type EventSink, jsonResponse } from "../exchange.js";
import { SseStream } from "../sse.js";

/**
 * Where a connection of a resumable stream goes: a 200 SSE answer is opened, and `onGone` is
 * called if its client leaves before the stream ends it (a web Response body, or a node:http
 * response).
 */
export interface StreamTarget {
  stream(keepAliveMs: number, onGone: () => void): EventSink;
}
/** Where one POSTed request's answer goes. Exactly one of `whole` and `stream` is called, once. */
export interface PostTarget extends StreamTarget {
  /** The JSON reply with this status, or (no message) an empty answer. */
  whole(status: number, message?: JsonRpcResponse): void;
}

/** An SSE answer as a web Response: its body is an SseStream. */
export class WebStreamTarget implements StreamTarget {
  /** The response, once `stream` has been called. */
  opened: Response | undefined;
  /** `base`: the headers of this HTTP response (CORS, Mcp-Session-Id). */
  protected readonly base: Headers;

  constructor(base: Headers) {
    this.base = base;
  }

  stream(keepAliveMs: number, onGone: () => void): EventSink {
    const connection = new SseStream({ keepAliveMs, onCancel: onGone });
    const headers = new Headers(this.base);
    headers.set("Content-Type", "text/event-stream");
    headers.set("Cache-Control", "no-cache, no-transform");
    headers.set("X-Accel-Buffering", "no");
    this.opened = new Response(connection.body, { status: 200, headers });
    this.answered(this.opened);
    return connection;
  }

  protected answered(_response: Response): void {}
}

/** A POST's answer as a web Response, whole or streamed. */
export class WebPostTarget extends WebStreamTarget implements PostTarget {
  readonly response: Promise<Response>;
  private resolve!: (response: Response) => void;

  constructor(base: Headers) {
    super(base);
    this.response = new Promise((resolve) => {
      this.resolve = resolve;
    });
  }

  whole(status: number, message?: JsonRpcResponse): void {
    this.resolve(
      message
        ? jsonResponse(message, status, this.base)
        : new Response(null, { status, headers: this.base }),
    );
  }

  protected override answered(response: Response): void {
    this.resolve(response);
  }
}
