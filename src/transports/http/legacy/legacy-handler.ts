/**
 * Legacy Streamable HTTP (2025-03-26 … 2025-11-25) on the MCP endpoint: `initialize` mints a
 * session, later POSTs name it with `Mcp-Session-Id`, GET opens (or with `Last-Event-ID`
 * resumes) an SSE stream, DELETE ends the session, idle sessions expire.
 */
import { ErrorCode } from "../../../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcMessage } from "../../../jsonrpc/types.js";
import { isLegacyVersion } from "../../../protocol/versions.js";
import type { McpServer } from "../../../server/mcp-server.js";
import type { MessageContext } from "../../transport.js";
import { jsonResponse } from "../exchange.js";
import { HEADER } from "../headers.js";
import { type EventStore, InMemoryEventStore } from "./event-store.js";
import { LegacySession } from "./legacy-session.js";
import { InMemorySessionStore, type SessionStore } from "./session-store.js";
import { type LegacyResponseMode, PostReply } from "./session-transport.js";

export interface LegacyOptions {
  /** A session unused this long (ms) expires; later requests get 404. Default 30 min. */
  sessionIdleMs?: number;
  /** Where SSE events are kept for `Last-Event-ID` resumption. Default: bounded, in memory. */
  eventStore?: EventStore;
  /** Where sessions are looked up. Default: in memory. */
  sessionStore?: SessionStore<LegacySession>;
  /** The `retry` field (ms) of the priming event: how long clients wait before reconnecting. */
  retryMs?: number;
  /**
   * Server-initiated disconnect for polling: POST replies open as SSE and the connection closes
   * right after the priming event; the client reconnects with GET + Last-Event-ID and gets the
   * rest. `true` for every request, or a predicate on the method and params.
   */
  disconnectAfterPriming?: boolean | ((method: string, params: unknown) => boolean);
  /** Sessions at once; `initialize` beyond this gets 503. Default 10,000. */
  maxSessions?: number;
}

/** Version assumed when a legacy request carries no MCP-Protocol-Version header. */
export const ASSUMED_LEGACY_VERSION = "2025-03-26";

const DEFAULT_IDLE_MS = 30 * 60_000;
const DEFAULT_RETRY_MS = 1_000;
const DEFAULT_MAX_SESSIONS = 10_000;

export interface LegacyRequest {
  request: Request;
  /** CORS headers for this request. */
  base: Headers;
  principal: unknown;
}

export interface LegacyHandlerSettings {
  responseMode: LegacyResponseMode;
  keepAliveMs: number;
}

export class LegacyHandler {
  private readonly server: McpServer;
  private readonly options: LegacyOptions;
  private readonly settings: LegacyHandlerSettings;
  private readonly sessions: SessionStore<LegacySession>;
  private readonly events: EventStore;
  private readonly idleMs: number;
  private readonly sweeper: NodeJS.Timeout;
  private count = 0;

  constructor(server: McpServer, options: LegacyOptions, settings: LegacyHandlerSettings) {
    this.server = server;
    this.options = options;
    this.settings = settings;
    this.sessions = options.sessionStore ?? new InMemorySessionStore();
    this.events = options.eventStore ?? new InMemoryEventStore();
    this.idleMs = options.sessionIdleMs ?? DEFAULT_IDLE_MS;
    this.sweeper = setInterval(() => this.expireIdle(), Math.min(60_000, this.idleMs / 2 + 10));
    this.sweeper.unref();
  }

  /** A POST that is not modern-shaped: initialize, or a message of an existing session. */
  async post(
    { request, base, principal }: LegacyRequest,
    message: JsonRpcMessage,
  ): Promise<Response> {
    const sessionId = request.headers.get(HEADER.sessionId);
    const isInitialize = "method" in message && "id" in message && message.method === "initialize";
    if (isInitialize && sessionId === null) return this.initialize(message, base, principal);

    const found = this.lookup(sessionId, principal, base);
    if (found instanceof Response) return found;
    const session = found;
    const headers = session.headersFor(base);
    const versionProblem = this.checkVersion(request.headers, session);
    if (versionProblem) return errorResponse(null, versionProblem, 400, headers);

    const context: MessageContext = { headers: request.headers, principal };
    if (!("method" in message) || !("id" in message)) {
      // Notifications and the client's answers to server requests.
      session.transport.deliver(message, context);
      return new Response(null, { status: 202, headers });
    }
    if (session.transport.has(message.id)) {
      return errorResponse(
        message.id,
        `Request id ${JSON.stringify(message.id)} is already in flight in this session`,
        400,
        headers,
      );
    }
    const reply = this.newReply(session, message.method, message.params, headers);
    session.transport.deliverRequest(message, reply, context);
    return reply.response;
  }

  /** GET: the standalone stream, or the resumption of any stream of the session. */
  async get({ request, base, principal }: LegacyRequest): Promise<Response> {
    if (!acceptsEventStream(request.headers.get("accept"))) {
      return errorResponse(null, "Not Acceptable: Accept must list text/event-stream", 406, base);
    }
    const found = this.lookup(request.headers.get(HEADER.sessionId), principal, base);
    if (found instanceof Response) return found;
    const session = found;
    const headers = session.headersFor(base);
    const versionProblem = this.checkVersion(request.headers, session);
    if (versionProblem) return errorResponse(null, versionProblem, 400, headers);
    const lastEventId = request.headers.get(HEADER.lastEventId);
    if (lastEventId) {
      const outcome = await session.resume(lastEventId, headers);
      if (outcome.kind === "resumed") return outcome.response;
      // A cursor we do not know (evicted, or not ours): a fresh standalone stream.
    }
    return session.openStandalone(headers) ?? conflict(headers);
  }

  /** DELETE: ends the session. */
  async delete({ request, base, principal }: LegacyRequest): Promise<Response> {
    const found = this.lookup(request.headers.get(HEADER.sessionId), principal, base);
    if (found instanceof Response) return found;
    await this.end(found);
    return new Response(null, { status: 204, headers: base });
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((session) => this.end(session)));
  }

  private async initialize(
    message: JsonRpcMessage & { id: JsonRpcId; method: string },
    base: Headers,
    principal: unknown,
  ): Promise<Response> {
    if (this.count >= (this.options.maxSessions ?? DEFAULT_MAX_SESSIONS)) {
      return errorResponse(message.id, "Too many sessions; try again later", 503, base);
    }
    const session = new LegacySession(this.server, {
      store: this.events,
      keepAliveMs: this.settings.keepAliveMs,
      retryMs: this.options.retryMs ?? DEFAULT_RETRY_MS,
      principal,
    });
    this.sessions.set(session.id, session);
    this.count++;
    // The initialize answer is plain JSON: nothing is related to it yet, and no polling.
    const reply = new PostReply("initialize", session, {
      mode: "auto",
      disconnectAfterPriming: false,
      baseHeaders: session.headersFor(base),
    });
    session.transport.deliverRequest(message, reply, { principal });
    const response = await reply.response;
    if (session.protocolVersion === undefined) {
      // A failed initialize leaves no session behind (and names none).
      await this.end(session);
      const headers = new Headers(response.headers);
      headers.delete(HEADER.sessionId);
      return new Response(response.body, { status: response.status, headers });
    }
    return response;
  }

  private newReply(
    session: LegacySession,
    method: string,
    params: unknown,
    headers: Headers,
  ): PostReply {
    const poll = this.options.disconnectAfterPriming;
    const disconnect =
      typeof poll === "function" ? poll(method, params) : poll === true && method !== "initialize";
    return new PostReply(method, session, {
      mode: this.settings.responseMode,
      // Without a priming event there is no cursor to resume from.
      disconnectAfterPriming: disconnect && (session.protocolVersion ?? "") >= "2025-11-25",
      baseHeaders: headers,
    });
  }

  /** The session a request names, or the response to send instead. */
  private lookup(
    sessionId: string | null,
    principal: unknown,
    base: Headers,
  ): LegacySession | Response {
    if (sessionId === null || sessionId.trim() === "") {
      return errorResponse(null, `Bad Request: ${HEADER.sessionId} header is required`, 400, base);
    }
    const session = this.sessions.get(sessionId.trim());
    if (!session || session.closed || this.expired(session)) {
      if (session) void this.end(session);
      return errorResponse(null, "Session not found", 404, base);
    }
    // A session belongs to whoever opened it; someone else holding the id learns nothing.
    if (!samePrincipal(session.principal, principal)) {
      return errorResponse(null, "Session not found", 404, base);
    }
    session.touch();
    return session;
  }

  private checkVersion(headers: Headers, session: LegacySession): string | undefined {
    const raw = headers.get(HEADER.protocolVersion);
    const version = raw === null ? ASSUMED_LEGACY_VERSION : raw.trim();
    if (raw === null) return undefined;
    if (!isLegacyVersion(version)) {
      return `Bad Request: unsupported ${HEADER.protocolVersion} '${version}' (supported: ${this.server.legacyVersions.join(", ")})`;
    }
    if (session.protocolVersion !== undefined && version !== session.protocolVersion) {
      return `Bad Request: ${HEADER.protocolVersion} '${version}' differs from the negotiated '${session.protocolVersion}'`;
    }
    return undefined;
  }

  private expired(session: LegacySession): boolean {
    return !session.busy && Date.now() - session.lastSeen > this.idleMs;
  }

  private expireIdle(): void {
    for (const session of this.sessions.values()) {
      if (session.busy) session.touch();
      else if (this.expired(session)) void this.end(session);
    }
  }

  private async end(session: LegacySession): Promise<void> {
    if (this.sessions.get(session.id) === session) {
      this.sessions.delete(session.id);
      this.count--;
    }
    await session.close();
  }
}

function samePrincipal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

function conflict(headers: Headers): Response {
  return errorResponse(null, "Conflict: this stream is already connected", 409, headers);
}

function errorResponse(
  id: JsonRpcId | null,
  message: string,
  status: number,
  headers: Headers,
): Response {
  const error = { code: ErrorCode.InvalidRequest, message };
  return jsonResponse({ jsonrpc: "2.0", id, error }, status, headers);
}

function acceptsEventStream(accept: string | null): boolean {
  if (!accept) return false;
  return accept
    .split(",")
    .some((part) => (part.split(";")[0] ?? "").trim().toLowerCase() === "text/event-stream");
}
