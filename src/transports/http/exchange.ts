/**
 * One POSTed request and its HTTP response: a single JSON object, or a request-scoped SSE stream
 * that opens when the first notification for the request arrives (or at once, by policy).
 */
import { ErrorCode } from "../../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcNotification, JsonRpcResponse } from "../../jsonrpc/types.js";
import { SseStream } from "./sse.js";

export type ResponseMode = "auto" | "json" | "sse";

export interface ExchangeOptions {
  /** "auto": JSON unless a notification comes first; "json": notifications dropped; "sse": always. */
  mode: ResponseMode;
  keepAliveMs: number;
  /** Headers every response carries (CORS). */
  baseHeaders: Headers;
  /** The HTTP request's signal: aborted when the client disconnects. */
  requestSignal: AbortSignal | undefined;
}

/** HTTP status for a JSON-RPC error sent as a whole JSON response. */
export function statusForError(code: number): number {
  switch (code) {
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400;
    default:
      return 200;
  }
}

/** A JSON response with the given status. */
export function jsonResponse(body: unknown, status: number, baseHeaders?: Headers): Response {
  const headers = new Headers(baseHeaders);
  headers.set("Content-Type", "application/json");
  return new Response(JSON.stringify(body), { status, headers });
}

export class Exchange {
  readonly originalId: JsonRpcId;
  readonly response: Promise<Response>;
  /** Aborted when the client goes away (response stream closed or request aborted). */
  readonly signal: AbortSignal;
  /** Called once when nothing more will be written (replied, aborted or failed). */
  onDone: () => void = () => {};
  private readonly options: ExchangeOptions;
  private readonly controller = new AbortController();
  private resolveResponse!: (response: Response) => void;
  private responded = false;
  private done = false;
  private sse: SseStream | undefined;
  private readonly onRequestAbort = () => this.abort();

  constructor(originalId: JsonRpcId, options: ExchangeOptions) {
    this.originalId = originalId;
    this.options = options;
    this.signal = this.controller.signal;
    this.response = new Promise((resolve) => {
      this.resolveResponse = resolve;
    });
    if (options.requestSignal?.aborted) this.abort();
    else options.requestSignal?.addEventListener("abort", this.onRequestAbort, { once: true });
  }

  get finished(): boolean {
    return this.done;
  }

  /** Starts the SSE response now (streaming methods, or the "sse" policy). */
  openStream(): void {
    if (this.done || this.sse) return;
    const sse = new SseStream({
      keepAliveMs: this.options.keepAliveMs,
      onCancel: () => this.abort(),
    });
    this.sse = sse;
    const headers = new Headers(this.options.baseHeaders);
    headers.set("Content-Type", "text/event-stream");
    headers.set("Cache-Control", "no-cache, no-transform");
    headers.set("X-Accel-Buffering", "no");
    this.respond(new Response(sse.body, { status: 200, headers }));
  }

  /** A notification that belongs to this request (progress, log, subscription events). */
  notify(notification: JsonRpcNotification): Promise<void> {
    if (this.done) return Promise.resolve();
    if (!this.sse) {
      if (this.options.mode === "json") return Promise.resolve();
      this.openStream();
    }
    return this.sse!.write(notification);
  }

  /** The final response; its id is put back to the one the client sent. */
  async reply(response: JsonRpcResponse): Promise<void> {
    if (this.done) return;
    const message = { ...response, id: this.originalId };
    if (this.sse) {
      const written = this.sse.write(message);
      this.finish();
      await written;
      return;
    }
    const status = "error" in message ? statusForError(message.error.code) : 200;
    this.respond(jsonResponse(message, status, this.options.baseHeaders));
    this.finish();
  }

  /** Ends the stream without a reply (a torn-down subscription). */
  end(): void {
    if (this.done) return;
    if (!this.sse) this.openStream();
    this.finish();
  }

  /** The server is closing: answer what has not been answered yet. */
  fail(message: string): void {
    if (this.done) return;
    this.controller.abort(new Error(message));
    if (!this.responded) {
      const error = { code: ErrorCode.InternalError, message };
      this.respond(
        jsonResponse({ jsonrpc: "2.0", id: this.originalId, error }, 503, this.options.baseHeaders),
      );
    }
    this.finish();
  }

  /** The client went away: cancel the handler and write nothing more. */
  private abort(): void {
    if (this.done) return;
    this.controller.abort(new Error("client closed the response stream"));
    // Nobody is left to read this; it only settles the promise.
    this.respond(new Response(null, { status: 500 }));
    this.finish();
  }

  private respond(response: Response): void {
    if (this.responded) return;
    this.responded = true;
    this.resolveResponse(response);
  }

  private finish(): void {
    this.done = true;
    this.sse?.end();
    this.options.requestSignal?.removeEventListener("abort", this.onRequestAbort);
    this.onDone();
  }
}
