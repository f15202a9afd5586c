/**
 * The Streamable HTTP client transport, for both eras on one URL.
 *
 * Modern (2026-07-28): one POST per message with the mirrored request headers; a JSON or
 * request-scoped SSE reply; cancelling a request aborts its fetch (the server treats the closed
 * stream as cancellation). Legacy (2025-03-26 … 2025-11-25): begins when the client sends
 * `initialize`; `Mcp-Session-Id` on every later request, a standalone GET stream, resumption
 * with `Last-Event-ID` honouring `retry`, and a fresh `initialize` after a 404. If `initialize`
 * itself meets 400/404/405 without a JSON-RPC body, the deprecated 2024-11-05 HTTP+SSE
 * transport is tried (a GET expecting an `endpoint` event).
 *
 * Era detection stays in McpClient: its `server/discover` probe is an ordinary modern request
 * here. A JSON-RPC error body on any status but 401/403 is delivered as that request's reply (so
 * -32022 retries and other modern codes prove a modern server); a 400/404/405 without one
 * rejects with an HttpStatusError tagged `eraSignal: "legacy"`, which probeEra reads as legacy.
 * The flavour found is cached per endpoint so the next transport skips what failed.
 */
import { ErrorCode, LocalError } from "../../../jsonrpc/errors.js";
import type {
  JsonObject,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcRequest,
  JsonRpcResponse,
} from "../../../jsonrpc/types.js";
import type {
  CloseInfo,
  RemoteEndpoint,
  SendOptions,
  Transport,
  TransportReceiver,
} from "../../../protocol/transport.js";
import { printableLine } from "../../../text/printable.js";
import { failureReplyIn, replyIn } from "./answer-reader.js";
import { type HttpAuthProvider, type HttpAuthRequest, sendAuthorized } from "./auth.js";
import { authorizationDigest } from "./authorization-context.js";
import { defaultCarrier } from "./default-carrier.js";
import {
  CachedLegacyError,
  endpointKey,
  type HttpFlavour,
  HttpStatusError,
  sharedFlavourCache,
} from "./era.js";
import { LegacySession } from "./legacy-session.js";
import { addTraceHeaders, standardHeaders } from "./mcp-headers-out.js";
import type { HeaderSource, HttpClientTransportOptions } from "./options.js";
import { FetchCarrier, type PostAnswer, type PostCarrier } from "./post-carrier.js";
import { brokenStream, type ReplySink } from "./reply-reader.js";
import { RequestCancel } from "./request-cancel.js";
import { SseEndpoint } from "./sse-endpoint.js";
import { ToolHeaderRegistry } from "./tool-headers.js";

export type { HeaderSource, HttpClientTransportOptions };

const PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";
const ACCEPT = "application/json, text/event-stream";

// Also an HttpCarrier for its own session classes, structurally: those members are marked
// internal and left out of the declarations, so the clause names Transport only.
export class HttpClientTransport implements Transport {
  readonly kind = "http" as const;
  /** The server as telemetry names it: its host as given in the URL, and the port. */
  readonly remote: RemoteEndpoint;
  readonly url: URL;
  readonly options: HttpClientTransportOptions;
  readonly closed: Promise<CloseInfo>;
  private receiver: TransportReceiver | undefined;
  private resolveClosed!: (info: CloseInfo) => void;
  private closing = false;
  private flavourValue: HttpFlavour | undefined;
  private readonly inflight = new Map<JsonRpcId, RequestCancel>();
  private readonly toolsListIds = new Set<JsonRpcId>();
  private readonly tools: ToolHeaderRegistry;
  private readonly legacy: LegacySession;
  private sse: SseEndpoint | undefined;
  private internalIds = 0;
  private posterValue: PostCarrier | undefined;

  /** @internal Where the carriers hand the replies they read. */
  readonly sink: ReplySink = {
    message: (message) => this.deliver(message),
    invalid: (detail) => this.warn(`unreadable message from the server: ${detail}`),
  };

  /** @internal The sink of one request's answer stream (HttpCarrier.sinkFor). */
  sinkFor(id: JsonRpcId): ReplySink {
    return { message: (message) => this.deliver(message, id), invalid: this.sink.invalid };
  }

  constructor(url: string | URL, options: HttpClientTransportOptions = {}) {
    this.url = new URL(url);
    const defaultPort = this.url.protocol === "https:" ? 443 : 80;
    this.remote = {
      network: "tcp",
      // URL keeps an IPv6 host in brackets; the conventions want the address alone.
      address: this.url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: this.url.port === "" ? defaultPort : Number(this.url.port),
    };
    this.options = options;
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    this.tools = new ToolHeaderRegistry((m) => this.warn(m), options.toolHeaderSchemas);
    this.legacy = new LegacySession(this);
    this.flavourValue = this.flavourCache.get(endpointKey(this.url));
  }

  /** How this transport reaches the server: undefined until the first exchange tells. */
  get flavour(): HttpFlavour | undefined {
    return this.flavourValue;
  }
  /** The legacy session id, when one was assigned. */
  get sessionId(): string | undefined {
    return this.legacy.sessionId;
  }
  get isClosed(): boolean {
    return this.closing;
  }

  start(receiver: TransportReceiver): void {
    if (this.receiver) throw new Error("HttpClientTransport already started");
    this.receiver = receiver;
  }

  async send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (this.closing) throw new LocalError("closed", "the HTTP transport is closed");
    if (!("method" in message) || !("id" in message)) {
      if (this.sse) return this.sse.post(message);
      if (this.legacy.established) return this.legacy.sendOther(message);
      return this.sendModernOther(message);
    }
    const cancel = new RequestCancel();
    this.inflight.set(message.id, cancel);
    if (message.method === "tools/list") this.toolsListIds.add(message.id);
    try {
      if (this.sse) return await this.sse.post(message);
      if (message.method === "initialize") return await this.initialize(message, cancel);
      if (this.legacy.established) {
        const reply = await this.legacy.request(message, cancel);
        // As for modern replies: it came on the request's own stream, nothing to abort (an
        // abort would close a reply stream that was about to end and give its connection back).
        this.inflight.delete(message.id);
        return this.deliver(reply);
      }
      // The cache answers probes only: a client that insists on modern still asks the server.
      if (options?.probe && (this.flavourValue === "legacy" || this.flavourValue === "sse")) {
        throw new CachedLegacyError(endpointKey(this.url), this.flavourValue);
      }
      return await this.modernRequest(message, cancel, false);
    } catch (error) {
      throw this.localError(message, error, cancel);
    } finally {
      this.inflight.delete(message.id);
    }
  }

  /**
   * Modern: aborting the POST closes the response stream, which the server treats as
   * cancellation; nothing else is sent. Legacy eras expect `notifications/cancelled`, so the
   * fetch is dropped and false tells the Session to send one.
   */
  cancel(requestId: JsonRpcId, reason?: string): boolean {
    this.inflight.get(requestId)?.abort(new LocalError("aborted", reason ?? "cancelled"));
    return !this.legacy.established && !this.sse;
  }

  async close(): Promise<void> {
    if (this.closing) return void (await this.closed);
    this.closing = true;
    for (const cancel of this.inflight.values()) {
      cancel.abort(new LocalError("closed", "the HTTP transport closed"));
    }
    this.sse?.close();
    // The session's DELETE goes over the carrier: close it only after.
    await this.legacy.end();
    this.posterValue?.close();
    this.finish({});
  }

  // ---- HttpCarrier -------------------------------------------------------------------------

  fetch(url: URL, init: RequestInit): Promise<Response> {
    const auth = this.options.auth;
    if (auth === undefined) return (this.options.fetch ?? globalThis.fetch)(url, init);
    return this.authorizedFetch(auth, url, init);
  }

  /** The HTTP+SSE transport's requests with the provider's headers, retried once on its word. */
  private async authorizedFetch(
    auth: HttpAuthProvider,
    url: URL,
    init: RequestInit,
  ): Promise<Response> {
    const send = this.options.fetch ?? globalThis.fetch;
    const request: HttpAuthRequest = { method: init.method ?? "GET", url, endpoint: this.url };
    const base = init.headers as Record<string, string> | undefined;
    return sendAuthorized(
      auth,
      request,
      (sent) => send(url, { ...init, headers: { ...base, ...sent } }),
      (response) => ({
        status: response.status,
        header: (name) => response.headers.get(name),
        headers: () => response.headers,
        discard: () => void response.body?.cancel().catch(() => {}),
      }),
    );
  }

  /** Transport: the digest of the Authorization header the next request sends, if any. */
  async authorizationContext(): Promise<string | undefined> {
    const auth = this.options.auth;
    if (auth !== undefined) {
      return authorizationDigest(
        await auth.headers({ method: "POST", url: this.url, endpoint: this.url }),
      );
    }
    const source = this.options.headers;
    return authorizationDigest(typeof source === "function" ? await source() : source);
  }

  async baseHeaders(): Promise<Record<string, string>> {
    const source = this.options.headers;
    return { ...(typeof source === "function" ? await source() : source) };
  }

  deliver(message: JsonRpcMessage, relatedRequestId?: JsonRpcId): void {
    if (this.closing) return;
    if (!("method" in message) && message.id !== null && this.toolsListIds.delete(message.id)) {
      if ("result" in message) message = { ...message, result: this.tools.learn(message.result) };
    }
    if (relatedRequestId === undefined) this.receiver?.message(message);
    else this.receiver?.message(message, { relatedRequestId });
    // A legacy reply may come on another stream (the GET stream): stop waiting for it here.
    if (!("method" in message) && message.id !== null) {
      this.inflight.get(message.id)?.abort(new LocalError("aborted", "answered on another stream"));
    }
  }

  warn(message: string): void {
    // Warnings quote the server (tool names, x-mcp-header values): shown escaped, never raw.
    const line = printableLine(message);
    (this.options.onWarning ?? ((text) => console.warn(`mcpwire http client: ${text}`)))(line);
  }

  fail(error: Error): void {
    if (this.closing) return;
    this.closing = true;
    for (const cancel of this.inflight.values()) cancel.abort(error);
    this.posterValue?.close();
    this.finish({ error });
  }

  // ---- modern ------------------------------------------------------------------------------

  private get flavourCache(): Map<string, HttpFlavour> {
    return this.options.flavourCache ?? sharedFlavourCache;
  }

  private remember(flavour: HttpFlavour): void {
    this.flavourValue = flavour;
    this.flavourCache.set(endpointKey(this.url), flavour);
  }

  /**
   * The headers of a modern POST, over the user's. Synchronous: with static user headers a
   * request costs no extra promise hops (only a header function is awaited, by the caller).
   */
  private modernHeaders(
    user: Record<string, string> | undefined,
    message: JsonRpcMessage,
  ): Record<string, string> {
    const headers: Record<string, string> = Object.assign({}, user);
    headers["Content-Type"] = "application/json";
    headers.Accept = ACCEPT;
    const params = "params" in message ? message.params : undefined;
    const meta = params?._meta as JsonObject | undefined;
    const version = meta?.[PROTOCOL_VERSION_META] ?? this.options.protocolVersion;
    if (typeof version === "string") headers["MCP-Protocol-Version"] = version;
    if ("method" in message && "id" in message) {
      Object.assign(headers, standardHeaders(message));
      if (message.method === "tools/call") {
        Object.assign(headers, this.tools.headersFor(params?.name, params?.arguments));
      }
    } else if ("method" in message) {
      headers["Mcp-Method"] = message.method;
    }
    addTraceHeaders(headers, message);
    return headers;
  }

  /**
   * How requests to the endpoint travel (modern POSTs; legacy POSTs, GETs and DELETE): the
   * user's fetch when given, else node:http on Node and the runtime's fetch elsewhere.
   */
  private get poster(): PostCarrier {
    this.posterValue ??= this.options.fetch
      ? new FetchCarrier(this.options.fetch)
      : defaultCarrier({ maxSockets: this.options.maxSockets });
    return this.posterValue;
  }

  private async modernRequest(
    request: JsonRpcRequest,
    cancel: RequestCancel,
    retried: boolean,
  ): Promise<void> {
    const reply = await this.modernExchange(request, cancel);
    if (
      "error" in reply &&
      reply.error.code === ErrorCode.HeaderMismatch &&
      request.method === "tools/call" &&
      !retried
    ) {
      // The tool's schema may have changed since we listed it: learn it again, retry once.
      await this.relistTools(request, cancel);
      return this.modernRequest(request, cancel, true);
    }
    // The reply came on the request's own stream: nothing to abort (deliver() would).
    this.inflight.delete(request.id);
    this.deliver(reply);
  }

  /** POSTs a modern request and returns its reply; notifications on the way are delivered. */
  private async modernExchange(
    request: JsonRpcRequest,
    cancel: RequestCancel,
  ): Promise<JsonRpcResponse> {
    const source = this.options.headers;
    const user = typeof source === "function" ? await source() : source;
    const answer = await this.post(
      this.modernHeaders(user, request),
      JSON.stringify(request),
      cancel,
    );
    if (!answer.ok) return failureReplyIn(request, answer);
    if (this.flavourValue !== "modern") this.remember("modern");
    // Modern servers ask through input_required results, not on the stream: no related sink.
    const reply = await replyIn(request, answer, this.sink, cancel);
    if (!reply) throw brokenStream(request.method);
    return reply;
  }

  /**
   * HttpCarrier: a POST to the endpoint (modern or legacy) over the carrier.
   * @internal for the transport's own session classes
   */
  post(headers: Record<string, string>, body: string, cancel?: RequestCancel): Promise<PostAnswer> {
    const auth = this.options.auth;
    if (auth === undefined) return this.poster.post(this.url, headers, body, cancel);
    return this.authorizedSend(auth, "POST", headers, body, cancel);
  }

  /**
   * HttpCarrier: the legacy session's GETs and DELETE over the carrier.
   * @internal for the transport's own session classes
   */
  request(
    method: "GET" | "DELETE",
    headers: Record<string, string>,
    cancel?: RequestCancel,
  ): Promise<PostAnswer> {
    const auth = this.options.auth;
    if (auth === undefined) return this.poster.request(method, this.url, headers, cancel);
    return this.authorizedSend(auth, method, headers, undefined, cancel);
  }

  /**
   * A request to the endpoint with the provider's headers; on a 401/403 the provider may renew
   * its credentials, and then the request goes once more. Kept apart so that without auth the
   * POST path has no extra await.
   */
  private async authorizedSend(
    auth: HttpAuthProvider,
    method: "POST" | "GET" | "DELETE",
    headers: Record<string, string>,
    body: string | undefined,
    cancel?: RequestCancel,
  ): Promise<PostAnswer> {
    const request: HttpAuthRequest = { method, url: this.url, endpoint: this.url };
    return sendAuthorized(
      auth,
      request,
      (sent) =>
        method === "POST"
          ? this.poster.post(this.url, { ...headers, ...sent }, body ?? "", cancel)
          : this.poster.request(method, this.url, { ...headers, ...sent }, cancel),
      (answer) => ({
        status: answer.status,
        header: (name) => answer.header(name),
        headers: () => answer.headers(),
        discard: () => answer.discard(),
      }),
    );
  }

  private async relistTools(request: JsonRpcRequest, cancel: RequestCancel): Promise<void> {
    const meta = request.params?._meta as JsonObject | undefined;
    let cursor: unknown;
    for (let page = 0; page < 100; page += 1) {
      const params: JsonObject = meta ? { _meta: meta } : {};
      if (typeof cursor === "string") params.cursor = cursor;
      const list: JsonRpcRequest = {
        jsonrpc: "2.0",
        id: `mcpwire-relist-${++this.internalIds}`,
        method: "tools/list",
        params,
      };
      const reply = await this.modernExchange(list, cancel);
      if (!("result" in reply)) return;
      this.tools.learn(reply.result);
      cursor = reply.result.nextCursor;
      if (typeof cursor !== "string") return;
    }
  }

  private async sendModernOther(message: JsonRpcMessage): Promise<void> {
    const source = this.options.headers;
    const user = typeof source === "function" ? await source() : source;
    const answer = await this.post(this.modernHeaders(user, message), JSON.stringify(message));
    answer.discard();
    if (!answer.ok) {
      const what = "method" in message ? message.method : "response";
      throw new HttpStatusError(answer.status, "", answer.headers(), what);
    }
  }

  // ---- legacy entry ------------------------------------------------------------------------

  /**
   * `initialize` starts a legacy session. When the endpoint refuses it without a JSON-RPC
   * body, the deprecated HTTP+SSE transport is the last thing left to try.
   */
  private async initialize(request: JsonRpcRequest, cancel: RequestCancel): Promise<void> {
    if (this.flavourValue !== "sse") {
      try {
        const reply = await this.legacy.initialize(request, cancel);
        if (this.legacy.established) this.remember("legacy");
        else this.forget();
        this.inflight.delete(request.id);
        return this.deliver(reply);
      } catch (error) {
        if (!(error instanceof HttpStatusError) || error.eraSignal !== "legacy") throw error;
      }
    }
    const sse = new SseEndpoint(this);
    try {
      await sse.open(cancel.signal);
    } catch (error) {
      this.forget();
      throw error;
    }
    this.sse = sse;
    this.remember("sse");
    await sse.post(request);
  }

  /** The cached flavour proved wrong: the next transport probes afresh. */
  private forget(): void {
    this.flavourValue = undefined;
    this.flavourCache.delete(endpointKey(this.url));
  }

  private localError(request: JsonRpcRequest, error: unknown, cancel: RequestCancel): Error {
    if (error instanceof LocalError) return error;
    if (cancel.aborted && cancel.reason instanceof LocalError) return cancel.reason;
    return brokenStream(request.method, error);
  }

  private finish(info: CloseInfo): void {
    this.resolveClosed(info);
    this.receiver?.closed?.(info);
  }
}
