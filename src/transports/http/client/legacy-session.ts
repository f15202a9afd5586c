/**
 * Legacy Streamable HTTP, 2025-03-26 … 2025-11-25 (2025-11-25 basic/transports.mdx): the
 * session the server assigns at `initialize`, the standalone GET stream for server-initiated
 * messages, resumption of broken streams with `Last-Event-ID` after the server's `retry` delay,
 * a fresh `initialize` when the server has forgotten the session (404), and DELETE at the end.
 * Every request goes over the transport's carrier (node:http by default, or the user's fetch).
 */
import { LocalError } from "../../../jsonrpc/errors.js";
import type { JsonRpcMessage, JsonRpcRequest, JsonRpcResponse } from "../../../jsonrpc/types.js";
import { ignoreError } from "../../../text/ignored-error.js";
import { failureReplyIn, replyIn, sseReplyIn } from "./answer-reader.js";
import type { HttpCarrier } from "./carrier.js";
import { HttpStatusError } from "./era.js";
import { addTraceHeaders } from "./mcp-headers-out.js";
import type { PostAnswer } from "./post-carrier.js";
import { brokenStream, type StreamPosition } from "./reply-reader.js";
import { RequestCancel } from "./request-cancel.js";

const DEFAULT_RECONNECT_DELAY_MS = 1000;
const DEFAULT_MAX_RECONNECTS = 5;
/** Failed reconnections in a row back off up to this (ms); a longer server `retry` still wins. */
const MAX_BACKOFF_MS = 30_000;
/** How long the closing DELETE may take. */
const DELETE_TIMEOUT_MS = 2000;
const POST_ACCEPT = "application/json, text/event-stream";

export class LegacySession {
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  /** True once an initialize succeeded over Streamable HTTP. */
  established = false;
  private readonly carrier: HttpCarrier;
  private initRequest: JsonRpcRequest | undefined;
  private getStream: RequestCancel | undefined;
  private reinitializing: Promise<void> | undefined;
  private reinitCount = 0;

  constructor(carrier: HttpCarrier) {
    this.carrier = carrier;
  }

  private get reconnectDelayMs(): number {
    return this.carrier.options.reconnectDelayMs ?? DEFAULT_RECONNECT_DELAY_MS;
  }
  private get maxReconnects(): number {
    return this.carrier.options.maxReconnects ?? DEFAULT_MAX_RECONNECTS;
  }

  private async headers(accept: string, lastEventId?: string): Promise<Record<string, string>> {
    return this.headersOver(await this.carrier.baseHeaders(), accept, lastEventId);
  }

  /** The session's headers over a copy of the user's. */
  private headersOver(
    user: Record<string, string> | undefined,
    accept: string,
    lastEventId?: string,
  ): Record<string, string> {
    const headers: Record<string, string> = Object.assign({}, user);
    headers.Accept = accept;
    if (accept !== "text/event-stream") headers["Content-Type"] = "application/json";
    if (this.sessionId !== undefined) headers["Mcp-Session-Id"] = this.sessionId;
    if (this.protocolVersion !== undefined) headers["MCP-Protocol-Version"] = this.protocolVersion;
    if (lastEventId !== undefined) headers["Last-Event-ID"] = lastEventId;
    return headers;
  }

  /** Static user headers cost no await: only a header function is waited for. */
  private post(message: JsonRpcMessage, cancel?: RequestCancel): Promise<PostAnswer> {
    const source = this.carrier.options.headers;
    const headersFor = (user: Record<string, string> | undefined) => {
      const headers = this.headersOver(user, POST_ACCEPT);
      addTraceHeaders(headers, message);
      return headers;
    };
    if (typeof source === "function") {
      return Promise.resolve(source()).then((user) =>
        this.carrier.post(headersFor(user), JSON.stringify(message), cancel),
      );
    }
    return this.carrier.post(headersFor(source), JSON.stringify(message), cancel);
  }

  /**
   * POSTs `initialize` without a session and resolves to its reply (the caller delivers it;
   * `established` tells whether it opened the session). Rejects with HttpStatusError when the
   * endpoint refuses it without a JSON-RPC body (the caller then tries HTTP+SSE).
   */
  async initialize(request: JsonRpcRequest, cancel: RequestCancel): Promise<JsonRpcResponse> {
    this.sessionId = undefined;
    this.protocolVersion = undefined;
    const answer = await this.post(request, cancel);
    if (!answer.ok) return failureReplyIn(request, answer);
    this.sessionId = answer.headers().get("mcp-session-id") ?? undefined;
    this.initRequest = request;
    const reply = await this.replyWithResume(request, answer, cancel);
    if ("result" in reply) this.adopt(reply);
    return reply;
  }

  /**
   * A request within the session: resolves to its reply (the caller delivers it). A 404 means
   * the server forgot the session: initialize again, once.
   */
  async request(
    request: JsonRpcRequest,
    cancel: RequestCancel,
    renewed = false,
  ): Promise<JsonRpcResponse> {
    if (this.reinitializing) await this.reinitializing;
    const answer = await this.post(request, cancel);
    if (answer.status === 404 && this.sessionId !== undefined && !renewed) {
      answer.discard();
      await this.reinitialize(cancel);
      return this.request(request, cancel, true);
    }
    if (!answer.ok) return failureReplyIn(request, answer);
    return this.replyWithResume(request, answer, cancel);
  }

  /** Notifications and replies to server requests: accepted with 202, nothing comes back. */
  async sendOther(message: JsonRpcMessage): Promise<void> {
    if (this.reinitializing) await this.reinitializing;
    const answer = await this.post(message);
    answer.discard();
    if (!answer.ok) {
      const what = "method" in message ? message.method : "response";
      throw new HttpStatusError(answer.status, "", answer.headers(), what);
    }
    if ("method" in message && message.method === "notifications/initialized") this.openStream();
  }

  /**
   * Ends the session: stops the GET stream and DELETEs the session (best effort, bounded by
   * DELETE_TIMEOUT_MS). The transport closes its carrier after this.
   */
  async end(): Promise<void> {
    this.getStream?.abort(new LocalError("closed", "the legacy session ended"));
    this.getStream = undefined;
    const sessionId = this.sessionId;
    if (sessionId === undefined) return;
    this.sessionId = undefined;
    const cancel = new RequestCancel();
    const timer = setTimeout(
      () => cancel.abort(new LocalError("aborted", "the session's DELETE timed out")),
      DELETE_TIMEOUT_MS,
    );
    try {
      const headers = await this.carrier.baseHeaders();
      headers["Mcp-Session-Id"] = sessionId;
      if (this.protocolVersion !== undefined)
        headers["MCP-Protocol-Version"] = this.protocolVersion;
      const answer = await this.carrier.request("DELETE", headers, cancel);
      answer.discard();
    } catch (error) {
      // The server may be gone already; the session dies with it.
      ignoreError("ending the legacy session (DELETE)", error);
    } finally {
      clearTimeout(timer);
    }
  }

  private adopt(reply: JsonRpcResponse & { result: Record<string, unknown> }): void {
    const version = reply.result.protocolVersion;
    if (typeof version === "string") this.protocolVersion = version;
    this.established = true;
  }

  private reinitialize(cancel: RequestCancel): Promise<void> {
    this.reinitializing ??= this.renew(cancel).finally(() => {
      this.reinitializing = undefined;
    });
    return this.reinitializing;
  }

  private async renew(cancel: RequestCancel): Promise<void> {
    const original = this.initRequest;
    if (!original) throw new LocalError("transport", "the legacy session expired (HTTP 404)");
    this.getStream?.abort(new LocalError("closed", "the legacy session expired"));
    this.getStream = undefined;
    this.sessionId = undefined;
    this.protocolVersion = undefined;
    const request = { ...original, id: `mcpwire-reinitialize-${++this.reinitCount}` };
    const answer = await this.post(request, cancel);
    if (answer.ok) this.sessionId = answer.headers().get("mcp-session-id") ?? undefined;
    const reply = answer.ok
      ? await this.replyWithResume(request, answer, cancel)
      : await failureReplyIn(request, answer);
    if (!("result" in reply)) {
      throw new LocalError("transport", `re-initialize failed: ${reply.error.message}`);
    }
    this.adopt(reply);
    this.carrier.warn(`legacy session expired; re-initialized as ${this.sessionId ?? "(none)"}`);
    // The server must hear `initialized` before anything else of the new session.
    const initialized = await this.post({ jsonrpc: "2.0", method: "notifications/initialized" });
    initialized.discard();
    this.openStream();
  }

  /**
   * The reply from a 2xx POST answer; an SSE stream that breaks before the reply is resumed
   * with GET + Last-Event-ID after the server's `retry` delay (2025-11-25 "Resumability").
   * A server that is briefly away (restarting: connection refused, 5xx) is tried again with
   * backoff, up to `maxReconnects` attempts in a row without a new event.
   */
  private async replyWithResume(
    request: JsonRpcRequest,
    first: PostAnswer,
    cancel: RequestCancel,
  ): Promise<JsonRpcResponse> {
    if (!first.contentType.includes("text/event-stream")) {
      const reply = await replyIn(request, first, this.carrier.sinkFor(request.id), cancel);
      if (!reply) throw brokenStream(request.method);
      return reply;
    }
    const position: StreamPosition = {};
    let answer: PostAnswer | undefined = first;
    let failure: unknown;
    let failures = 0;
    for (;;) {
      if (answer) {
        const cursor = position.lastEventId;
        try {
          const reply = await sseReplyIn(
            answer,
            request.id,
            this.carrier.sinkFor(request.id),
            position,
          );
          if (reply) return reply;
        } catch (error) {
          if (cancel.aborted) throw cancel.reason;
          failure = error;
        }
        // A connection that moved the cursor made progress: only failures in a row count.
        if (position.lastEventId !== cursor) failures = 0;
      }
      if (position.lastEventId === undefined || failures >= this.maxReconnects) {
        throw brokenStream(request.method, failure);
      }
      failures += 1;
      await delay(backoff(position.retryMs ?? this.reconnectDelayMs, failures), cancel);
      answer = undefined;
      try {
        const headers = await this.headers("text/event-stream", position.lastEventId);
        const resumed = await this.carrier.request("GET", headers, cancel);
        if (resumed.ok && resumed.contentType.includes("text/event-stream")) {
          answer = resumed;
        } else {
          resumed.discard();
          failure = new Error(`resumption answered HTTP ${resumed.status}`);
          // The session or the stream is gone, or resumption is refused: no point in retrying.
          if (isFinalRefusal(resumed.status)) throw brokenStream(request.method, failure);
        }
      } catch (error) {
        if (cancel.aborted) throw cancel.reason;
        if (error instanceof LocalError) throw error;
        failure = error;
      }
    }
  }

  /** The standalone GET stream; a server answering 405 offers none. */
  private openStream(): void {
    if (this.getStream || this.carrier.isClosed) return;
    const cancel = new RequestCancel();
    this.getStream = cancel;
    void this.runStream(cancel);
  }

  private async runStream(cancel: RequestCancel): Promise<void> {
    const position: StreamPosition = {};
    let failures = 0;
    while (!cancel.aborted && !this.carrier.isClosed) {
      try {
        const headers = await this.headers("text/event-stream", position.lastEventId);
        const answer = await this.carrier.request("GET", headers, cancel);
        if (!answer.ok || !answer.contentType.includes("text/event-stream")) {
          answer.discard();
          // 405: no stream offered. 404: the session is gone; the next request renews it.
          if (answer.status === 405 || answer.status === 404) return;
          failures += 1;
        } else {
          failures = 0;
          await sseReplyIn(answer, undefined, this.carrier.sink, position);
        }
      } catch (error) {
        if (cancel.aborted) return;
        if (error instanceof LocalError && error.kind === "auth") {
          // Asking again would start another authorization (a browser prompt, say) per retry.
          this.carrier.warn(`the legacy GET stream stopped: ${error.message}`);
          return;
        }
        failures += 1;
      }
      if (failures > this.maxReconnects) {
        this.carrier.warn("the legacy GET stream failed repeatedly; giving it up");
        return;
      }
      try {
        await delay(backoff(position.retryMs ?? this.reconnectDelayMs, failures), cancel);
      } catch {
        return;
      }
    }
  }
}

/**
 * The wait before reconnection attempt number `failures` in a row: the server's `retry` (or
 * our default) first, doubling after each failure up to MAX_BACKOFF_MS.
 */
function backoff(retryMs: number, failures: number): number {
  if (failures <= 1) return retryMs;
  return Math.max(retryMs, Math.min(retryMs * 2 ** (failures - 1), MAX_BACKOFF_MS));
}

/** A 4xx other than timeout or rate limiting: asking again gets the same answer. */
function isFinalRefusal(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** Waits `ms`, or rejects with the cancellation's reason when it comes first. */
function delay(ms: number, cancel: RequestCancel): Promise<void> {
  return new Promise((resolve, reject) => {
    if (cancel.aborted) return reject(cancel.reason);
    const timer = setTimeout(() => {
      forget();
      resolve();
    }, ms);
    // No request is in flight while waiting: the cancellation's one listener is free.
    const forget = cancel.onAbort((reason) => {
      clearTimeout(timer);
      reject(reason);
    });
  });
}
