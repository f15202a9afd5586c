/**
 * Legacy Streamable HTTP, 2025-03-26 … 2025-11-25 (2025-11-25 basic/transports.mdx): the
 * session the server assigns at `initialize`, the standalone GET stream for server-initiated
 * messages, resumption of broken streams with `Last-Event-ID` after the server's `retry` delay,
 * a fresh `initialize` when the server has forgotten the session (404), and DELETE at the end.
 */
import { LocalError } from "../../../jsonrpc/errors.js";
import type { JsonRpcMessage, JsonRpcRequest, JsonRpcResponse } from "../../../jsonrpc/types.js";
import type { HttpCarrier } from "./carrier.js";
import { HttpStatusError } from "./era.js";
import { brokenStream, readSseReply, type StreamPosition } from "./reply-reader.js";

const DEFAULT_RECONNECT_DELAY_MS = 1000;
const DEFAULT_MAX_RECONNECTS = 5;
/** Failed reconnections in a row back off up to this (ms); a longer server `retry` still wins. */
const MAX_BACKOFF_MS = 30_000;

export class LegacySession {
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  /** True once an initialize succeeded over Streamable HTTP. */
  established = false;
  private readonly carrier: HttpCarrier;
  private initRequest: JsonRpcRequest | undefined;
  private getStream: AbortController | undefined;
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
    const headers = await this.carrier.baseHeaders();
    headers.Accept = accept;
    if (accept !== "text/event-stream") headers["Content-Type"] = "application/json";
    if (this.sessionId !== undefined) headers["Mcp-Session-Id"] = this.sessionId;
    if (this.protocolVersion !== undefined) headers["MCP-Protocol-Version"] = this.protocolVersion;
    if (lastEventId !== undefined) headers["Last-Event-ID"] = lastEventId;
    return headers;
  }

  private post(message: JsonRpcMessage, signal?: AbortSignal): Promise<Response> {
    return this.headers("application/json, text/event-stream").then((headers) =>
      this.carrier.fetch(this.carrier.url, {
        method: "POST",
        headers,
        body: JSON.stringify(message),
        signal,
      }),
    );
  }

  /**
   * POSTs `initialize` without a session. Rejects with HttpStatusError when the endpoint refuses
   * it without a JSON-RPC body (the caller then tries HTTP+SSE); a JSON-RPC error is delivered.
   */
  async initialize(request: JsonRpcRequest, signal: AbortSignal): Promise<boolean> {
    this.sessionId = undefined;
    this.protocolVersion = undefined;
    const response = await this.post(request, signal);
    if (!response.ok) {
      this.carrier.deliver(await this.carrier.failureReply(request, response));
      return false;
    }
    this.sessionId = response.headers.get("mcp-session-id") ?? undefined;
    this.initRequest = request;
    const reply = await this.replyWithResume(request, response, signal);
    if ("result" in reply) this.adopt(reply);
    this.carrier.deliver(reply);
    return this.established;
  }

  /** A request within the session; a 404 means the server forgot it: initialize again, once. */
  async request(request: JsonRpcRequest, signal: AbortSignal, renewed = false): Promise<void> {
    await this.reinitializing;
    const response = await this.post(request, signal);
    if (response.status === 404 && this.sessionId !== undefined && !renewed) {
      await response.body?.cancel().catch(() => {});
      await this.reinitialize(signal);
      return this.request(request, signal, true);
    }
    if (!response.ok) {
      this.carrier.deliver(await this.carrier.failureReply(request, response));
      return;
    }
    this.carrier.deliver(await this.replyWithResume(request, response, signal));
  }

  /** Notifications and replies to server requests: accepted with 202, nothing comes back. */
  async sendOther(message: JsonRpcMessage): Promise<void> {
    await this.reinitializing;
    const response = await this.post(message);
    await response.body?.cancel().catch(() => {});
    if (!response.ok) {
      const what = "method" in message ? message.method : "response";
      throw new HttpStatusError(response.status, "", response.headers, what);
    }
    if ("method" in message && message.method === "notifications/initialized") this.openStream();
  }

  /** Ends the session: stops the GET stream and DELETEs the session (best effort). */
  async end(): Promise<void> {
    this.getStream?.abort();
    this.getStream = undefined;
    const sessionId = this.sessionId;
    if (sessionId === undefined) return;
    this.sessionId = undefined;
    try {
      const headers = await this.carrier.baseHeaders();
      headers["Mcp-Session-Id"] = sessionId;
      if (this.protocolVersion !== undefined)
        headers["MCP-Protocol-Version"] = this.protocolVersion;
      const response = await this.carrier.fetch(this.carrier.url, {
        method: "DELETE",
        headers,
        signal: AbortSignal.timeout(2000),
      });
      await response.body?.cancel().catch(() => {});
    } catch {
      // The server may be gone already; the session dies with it.
    }
  }

  private adopt(reply: JsonRpcResponse & { result: Record<string, unknown> }): void {
    const version = reply.result.protocolVersion;
    if (typeof version === "string") this.protocolVersion = version;
    this.established = true;
  }

  private reinitialize(signal: AbortSignal): Promise<void> {
    this.reinitializing ??= this.renew(signal).finally(() => {
      this.reinitializing = undefined;
    });
    return this.reinitializing;
  }

  private async renew(signal: AbortSignal): Promise<void> {
    const original = this.initRequest;
    if (!original) throw new LocalError("transport", "the legacy session expired (HTTP 404)");
    this.getStream?.abort();
    this.getStream = undefined;
    this.sessionId = undefined;
    this.protocolVersion = undefined;
    const request = { ...original, id: `mcpwire-reinitialize-${++this.reinitCount}` };
    const response = await this.post(request, signal);
    if (response.ok) this.sessionId = response.headers.get("mcp-session-id") ?? undefined;
    const reply = response.ok
      ? await this.replyWithResume(request, response, signal)
      : await this.carrier.failureReply(request, response);
    if (!("result" in reply)) {
      throw new LocalError("transport", `re-initialize failed: ${reply.error.message}`);
    }
    this.adopt(reply);
    this.carrier.warn(`legacy session expired; re-initialized as ${this.sessionId ?? "(none)"}`);
    // The server must hear `initialized` before anything else of the new session.
    const initialized = await this.post({ jsonrpc: "2.0", method: "notifications/initialized" });
    await initialized.body?.cancel().catch(() => {});
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
    response: Response,
    signal: AbortSignal,
  ): Promise<JsonRpcResponse> {
    const type = response.headers.get("content-type") ?? "";
    if (!type.includes("text/event-stream") || !response.body) {
      const reply = await this.carrier.readReply(request, response, signal);
      if (!reply) throw brokenStream(request.method);
      return reply;
    }
    const position: StreamPosition = {};
    let body: ReadableStream<Uint8Array> | undefined = response.body;
    let failure: unknown;
    let failures = 0;
    for (;;) {
      if (body) {
        const cursor = position.lastEventId;
        try {
          const reply = await readSseReply(body, request.id, this.carrier.sink, position);
          if (reply) return reply;
        } catch (error) {
          if (signal.aborted) throw signal.reason;
          failure = error;
        }
        // A connection that moved the cursor made progress: only failures in a row count.
        if (position.lastEventId !== cursor) failures = 0;
      }
      if (position.lastEventId === undefined || failures >= this.maxReconnects) {
        throw brokenStream(request.method, failure);
      }
      failures += 1;
      await delay(backoff(position.retryMs ?? this.reconnectDelayMs, failures), signal);
      body = undefined;
      try {
        const resumed = await this.carrier.fetch(this.carrier.url, {
          method: "GET",
          headers: await this.headers("text/event-stream", position.lastEventId),
          signal,
        });
        const resumedType = resumed.headers.get("content-type") ?? "";
        if (resumed.ok && resumedType.includes("text/event-stream") && resumed.body) {
          body = resumed.body;
        } else {
          await resumed.body?.cancel().catch(() => {});
          failure = new Error(`resumption answered HTTP ${resumed.status}`);
          // The session or the stream is gone, or resumption is refused: no point in retrying.
          if (isFinalRefusal(resumed.status)) throw brokenStream(request.method, failure);
        }
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (error instanceof LocalError) throw error;
        failure = error;
      }
    }
  }

  /** The standalone GET stream; a server answering 405 offers none. */
  private openStream(): void {
    if (this.getStream || this.carrier.isClosed) return;
    const controller = new AbortController();
    this.getStream = controller;
    void this.runStream(controller.signal);
  }

  private async runStream(signal: AbortSignal): Promise<void> {
    const position: StreamPosition = {};
    let failures = 0;
    while (!signal.aborted && !this.carrier.isClosed) {
      try {
        const response = await this.carrier.fetch(this.carrier.url, {
          method: "GET",
          headers: await this.headers("text/event-stream", position.lastEventId),
          signal,
        });
        const type = response.headers.get("content-type") ?? "";
        if (!response.ok || !type.includes("text/event-stream") || !response.body) {
          await response.body?.cancel().catch(() => {});
          // 405: no stream offered. 404: the session is gone; the next request renews it.
          if (response.status === 405 || response.status === 404) return;
          failures += 1;
        } else {
          failures = 0;
          await readSseReply(response.body, undefined, this.carrier.sink, position);
        }
      } catch (error) {
        if (signal.aborted) return;
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
        await delay(backoff(position.retryMs ?? this.reconnectDelayMs, failures), signal);
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

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
