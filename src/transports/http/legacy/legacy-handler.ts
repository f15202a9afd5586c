/**
 * Legacy Streamable HTTP (2025-03-26 … 2025-11-25) on the MCP endpoint: `initialize` mints a
 * session, later POSTs name it with `Mcp-Session-Id`, GET opens (or with `Last-Event-ID`
 * resumes) an SSE stream, DELETE ends the session, idle sessions expire.
 */

import type { JsonRpcId, JsonRpcMessage } from "../../../jsonrpc/types.js";
import { unref } from "../../../platform/scheduling.js";
import { HEADER, type HeaderSource } from "../../../protocol/http-headers.js";
import type { MessageContext } from "../../../protocol/transport.js";
import { isLegacyVersion } from "../../../protocol/versions.js";
import type { McpServerBase } from "../../../server/mcp-server.js";
import { ignoring } from "../../../text/ignored-error.js";
import type { HeaderPairs } from "../security.js";
import type { ClusterMessage } from "./cluster.js";
import { ClusterMember } from "./cluster-member.js";
import { type EventStore, InMemoryEventStore } from "./event-store.js";
import type { LegacyOptions } from "./legacy-options.js";
import {
  acceptsEventStream,
  conflict,
  errorResponse,
  restarting,
  samePrincipal,
} from "./legacy-responses.js";
import { LegacySession, type LegacySessionOptions } from "./legacy-session.js";
import { principalKey, type SessionRecordStore } from "./session-records.js";
import { InMemorySessionStore, type SessionStore } from "./session-store.js";
import { SessionTable } from "./session-table.js";
import { type LegacyResponseMode, PostReply } from "./session-transport.js";
import { type PostTarget, WebPostTarget } from "./stream-target.js";

export type { LegacyOptions } from "./legacy-options.js";

/** Version assumed when a legacy request carries no MCP-Protocol-Version header. */
const ASSUMED_LEGACY_VERSION = "2025-03-26";

const DEFAULT_IDLE_MS = 30 * 60_000;
const DEFAULT_RETRY_MS = 1_000;
const DEFAULT_MAX_SESSIONS = 10_000;
const DEFAULT_HALF_OPEN_MS = 30_000;
const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;

export interface LegacyRequest {
  request: Request;
  /** CORS headers for this request. */
  base: Headers;
  principal: unknown;
}

export interface LegacyHandlerSettings {
  responseMode: LegacyResponseMode;
  keepAliveMs: number;
  /** What one stream's connection may hold for a client that does not read it (bytes). */
  maxBacklogBytes: number;
}

export class LegacyHandler {
  private readonly server: McpServerBase;
  private readonly options: LegacyOptions;
  private readonly settings: LegacyHandlerSettings;
  private readonly sessions: SessionStore<LegacySession>;
  private readonly events: EventStore;
  private readonly records: SessionRecordStore | undefined;
  /** Sessions outlive this handler: their records are someone else's (a durable store). */
  private readonly suspendOnClose: boolean;
  private readonly idleMs: number;
  private readonly halfOpenMs: number;
  /** Count, recency and owners of the sessions held here (the limits above). */
  private readonly table: SessionTable<LegacySession>;
  /** Shared by every session this handler makes. */
  private readonly sessionOptions: LegacySessionOptions;
  private readonly sweeper: NodeJS.Timeout;
  private readonly rebuilding = new Map<string, Promise<LegacySession | undefined>>();
  /** Set when this handler is one instance of a cluster (LegacyOptions.cluster). */
  private readonly member: ClusterMember | undefined;
  private closing = false;

  constructor(server: McpServerBase, options: LegacyOptions, settings: LegacyHandlerSettings) {
    this.server = server;
    this.options = options;
    this.settings = settings;
    this.sessions = options.sessionStore ?? new InMemorySessionStore();
    this.events = options.cluster?.events ?? options.eventStore ?? new InMemoryEventStore();
    // Without a configured store there are no records: sessions live in this process only.
    this.records = options.sessionRecords;
    this.suspendOnClose = options.sessionRecords !== undefined || options.cluster !== undefined;
    this.idleMs = options.sessionIdleMs ?? DEFAULT_IDLE_MS;
    this.halfOpenMs = Math.min(this.idleMs, options.halfOpenSessionMs ?? DEFAULT_HALF_OPEN_MS);
    this.table = new SessionTable(
      options.maxSessions ?? DEFAULT_MAX_SESSIONS,
      options.maxSessionsPerOwner ?? Number.POSITIVE_INFINITY,
    );
    this.sessionOptions = {
      store: this.events,
      records: this.records,
      keepAliveMs: settings.keepAliveMs,
      maxBacklogBytes: settings.maxBacklogBytes,
      retryMs: options.retryMs ?? DEFAULT_RETRY_MS,
      recordUseEveryMs: Math.min(60_000, this.idleMs / 4),
      onError: (error) => server.reportError(error),
    };
    if (options.cluster) {
      // A record outlives its last write by one write interval: another instance may have
      // used the session that long ago without writing it yet.
      const ttlMs = this.idleMs + this.sessionOptions.recordUseEveryMs;
      const report = (error: Error) => server.reportError(error);
      this.member = new ClusterMember(options.cluster, ttlMs, report, (message) =>
        this.heard(message),
      );
      this.sessionOptions.cluster = this.member.context;
    }
    this.sweeper = setInterval(() => this.expireIdle(), Math.min(60_000, this.halfOpenMs / 2 + 10));
    unref(this.sweeper);
  }

  /** A POST that is not modern-shaped: initialize, or a message of an existing session. */
  async post(
    { request, base, principal }: LegacyRequest,
    message: JsonRpcMessage,
  ): Promise<Response> {
    const sessionId = request.headers.get(HEADER.sessionId);
    const isInitialize = "method" in message && "id" in message && message.method === "initialize";
    if (isInitialize && sessionId === null) {
      const owner = this.options.sessionOwner?.(request, principal);
      return this.initialize(message, base, principal, owner);
    }
    const found = await this.lookup(sessionId, principal, base);
    if (found instanceof Response) return found;
    const headers = found.headersFor(base);
    let target: WebPostTarget | undefined;
    const context: MessageContext = { headers: request.headers, principal };
    const answered = this.inSession(found, message, request.headers, context, headers, () => {
      target = new WebPostTarget(headers);
      return target;
    });
    return answered ?? target!.response;
  }

  /**
   * @internal A POST naming a session, from the node:http fast path: no web Request, and the answer goes
   * to `target` (made with the response's headers). Returns a Response to write instead (an
   * error, 202 for a notification), or undefined once the request is the session's. Same checks
   * and answers as `post`; the lookup only waits when the session must be rebuilt (a record
   * store, a cluster), so a session held here is served without a pause.
   */
  postInSession(
    sessionId: string,
    message: JsonRpcMessage,
    requestHeaders: HeaderSource,
    context: MessageContext,
    base: HeaderPairs,
    target: (headers: HeaderPairs) => PostTarget,
  ): Response | undefined | Promise<Response | undefined> {
    const found = this.lookup(sessionId, context.principal, base);
    const serve = (session: LegacySession | Response) => {
      if (session instanceof Response) return session;
      const headers = session.pairsFor(base);
      return this.inSession(session, message, requestHeaders, context, headers, () =>
        target(headers),
      );
    };
    return found instanceof Promise ? found.then(serve) : serve(found);
  }

  /**
   * A message for a session found: a Response when it is answered at once, or undefined when
   * a request went to the session, whose answer goes to the target `makeTarget` gives.
   */
  private inSession(
    session: LegacySession,
    message: JsonRpcMessage,
    requestHeaders: HeaderSource,
    context: MessageContext,
    headers: Headers | HeaderPairs,
    makeTarget: () => PostTarget,
  ): Response | Promise<Response> | undefined {
    if ("method" in message && "id" in message && message.method === "initialize") {
      // A live session's version and capabilities are settled: a second initialize would
      // renegotiate them under the client's feet (a downgrade, capabilities swapped). The
      // session stays exactly as it was; a client that wants new terms opens a new session.
      return errorResponse(
        message.id,
        `Bad Request: this session is already initialized (${session.protocolVersion ?? "initializing"}); send initialize without ${HEADER.sessionId} to open a new session`,
        400,
        headers,
      );
    }
    const versionProblem = this.checkVersion(requestHeaders, session);
    if (versionProblem) return errorResponse(null, versionProblem, 400, headers);

    if (!("method" in message) || !("id" in message)) {
      // Notifications and the client's answers to server requests (also while shutting down:
      // a request finishing in its grace period may be waiting for one). In a cluster, a
      // change of the shared state is stored before the client hears it was taken.
      const stored = session.deliver(message, context);
      const accepted = () => {
        // `initialized` turns a half-open session into a full one.
        if ("method" in message && message.method === "notifications/initialized") {
          this.table.used(session);
        }
        return new Response(null, {
          status: 202,
          headers: headers as Headers | [string, string][],
        });
      };
      return stored ? stored.then(accepted) : accepted();
    }
    if (this.closing) return restarting(message.id, headers);
    if (session.transport.has(message.id)) {
      return errorResponse(
        message.id,
        `Request id ${JSON.stringify(message.id)} is already in flight in this session`,
        400,
        headers,
      );
    }
    const reply = this.newReply(session, message.id, message.method, message.params, makeTarget());
    session.transport.deliverRequest(message, reply, context);
    return undefined;
  }

  /** GET: the standalone stream, or the resumption of any stream of the session. */
  async get({ request, base, principal }: LegacyRequest): Promise<Response> {
    if (!acceptsEventStream(request.headers.get("accept"))) {
      return errorResponse(null, "Not Acceptable: Accept must list text/event-stream", 406, base);
    }
    // Resumptions go to the next process, which serves what this one still writes meanwhile.
    if (this.closing && this.suspendOnClose) return restarting(null, base);
    const found = await this.lookup(request.headers.get(HEADER.sessionId), principal, base);
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
    const found = await this.lookup(request.headers.get(HEADER.sessionId), principal, base);
    if (found instanceof Response) return found;
    try {
      await this.end(found);
    } catch (error) {
      // Shared state out of reach: the session may live on elsewhere, so no 204.
      this.server.reportError(error instanceof Error ? error : new Error(String(error)));
      return errorResponse(null, "Service Unavailable: the session could not be ended", 503, base);
    }
    return new Response(null, { status: 204, headers: base });
  }

  /**
   * Without a durable record store: ends every session. With one (a restart): live SSE
   * connections end at once with a `retry` hint, so clients start reconnecting; running requests
   * get `shutdownGraceMs` to finish, their events going to the event store; then the sessions
   * are suspended, for the next process to rebuild and serve their resumptions.
   */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.closing = true;
    if (!this.suspendOnClose) {
      await Promise.all([...this.sessions.values()].map((session) => this.end(session)));
      return;
    }
    await Promise.allSettled(this.rebuilding.values());
    const sessions = [...this.sessions.values()];
    for (const session of sessions) session.disconnectStreams();
    const grace = this.options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(sessions.map((session) => session.transport.drained())),
      new Promise((resolve) => {
        timer = setTimeout(resolve, grace);
      }),
    ]);
    clearTimeout(timer);
    await Promise.all(
      sessions.map(async (session) => {
        this.forget(session);
        await session.suspend();
      }),
    );
    await this.member?.close();
  }

  private async initialize(
    message: JsonRpcMessage & { id: JsonRpcId; method: string },
    base: Headers,
    principal: unknown,
    owner: string | undefined,
  ): Promise<Response> {
    if (this.closing) return restarting(message.id, base);
    // No sweep here (a scan per initialize would be the attacker's lever): the table's LRU
    // order already puts expired sessions first.
    const room = this.table.makeRoom(owner);
    if (!room.ok) {
      return room.reason === "full"
        ? errorResponse(message.id, "Too many sessions; try again later", 503, base)
        : errorResponse(message.id, "Too many sessions for this client; end one first", 429, base);
    }
    for (const evicted of room.evicted) {
      // A cluster session lives on in the shared store: only this instance's copy goes.
      const ending = evicted.shared ? evicted.detach() : this.end(evicted);
      void ending.catch((error) => this.server.reportError(error));
    }
    const session = new LegacySession(this.server, this.sessionOptions, principal);
    session.owner = owner;
    this.sessions.set(session.id, session);
    this.table.add(session);
    // The initialize answer is plain JSON: nothing is related to it yet, and no polling.
    const target = new WebPostTarget(session.headersFor(base));
    const reply = new PostReply(
      "initialize",
      session,
      { requestId: message.id, mode: "auto", disconnectAfterPriming: false },
      target,
    );
    session.transport.deliverRequest(message, reply, { principal });
    const response = await target.response;
    if (session.protocolVersion !== undefined && !(await session.stateStored())) {
      // No other instance could find it: no session rather than half of one.
      await response.body?.cancel();
      await this.end(session).catch(ignoring("ending a session whose state was not stored"));
      return errorResponse(
        message.id,
        "Service Unavailable: session state could not be stored",
        503,
        base,
      );
    }
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
    requestId: JsonRpcId,
    method: string,
    params: unknown,
    target: PostTarget,
  ): PostReply {
    const poll = this.options.disconnectAfterPriming;
    const disconnect =
      typeof poll === "function" ? poll(method, params) : poll === true && method !== "initialize";
    const options = {
      requestId,
      mode: this.settings.responseMode,
      // Without a priming event there is no cursor to resume from.
      disconnectAfterPriming: disconnect && (session.protocolVersion ?? "") >= "2025-11-25",
    };
    return new PostReply(method, session, options, target);
  }

  /**
   * The session a request names (rebuilt from its record when this process does not hold it),
   * or the response to send instead. Synchronous unless a rebuild is needed.
   */
  private lookup(
    sessionId: string | null,
    principal: unknown,
    base: Headers | HeaderPairs,
  ): LegacySession | Response | Promise<LegacySession | Response> {
    if (sessionId === null || sessionId.trim() === "") {
      return errorResponse(null, `Bad Request: ${HEADER.sessionId} header is required`, 400, base);
    }
    const id = sessionId.trim();
    let session = this.sessions.get(id);
    if (session?.shared && !session.closed) {
      if (this.expired(session)) {
        // Idle here, maybe busy elsewhere: the shared record decides (read again below).
        this.forget(session);
        void session.detach();
        session = undefined;
      } else if (session.staleCopy(Date.now())) {
        return this.lookupChecked(session, principal, base);
      }
    }
    if (!session && this.closing && this.member) return restarting(null, base);
    if (!session && !this.closing) return this.lookupRebuilt(id, principal, base);
    return this.admit(session, principal, base);
  }

  private async lookupRebuilt(
    id: string,
    principal: unknown,
    base: Headers | HeaderPairs,
  ): Promise<LegacySession | Response> {
    let session: LegacySession | undefined;
    try {
      session = await this.rebuild(id, principal);
    } catch (error) {
      this.server.reportError(error instanceof Error ? error : new Error(String(error)));
      return errorResponse(null, "Service Unavailable: session state is unreachable", 503, base);
    }
    return this.admit(session, principal, base);
  }

  /** A copy held here that must read its shared record first (LegacyCluster.recordCheckMs). */
  private async lookupChecked(
    session: LegacySession,
    principal: unknown,
    base: Headers | HeaderPairs,
  ): Promise<LegacySession | Response> {
    if (!(await session.recheck())) this.endedElsewhere(session);
    return this.admit(session, principal, base);
  }

  /** Its record is gone: ended on another instance (whose announcement never came). */
  private endedElsewhere(session: LegacySession): void {
    this.forget(session);
    session.endedElsewhere();
  }

  /** A session found (or not) for this principal: in use now, or the 404 to send. */
  private admit(
    session: LegacySession | undefined,
    principal: unknown,
    base: Headers | HeaderPairs,
  ): LegacySession | Response {
    if (!session || session.closed || this.expired(session)) {
      if (session) void this.end(session);
      return errorResponse(null, "Session not found", 404, base);
    }
    // A session belongs to whoever opened it; someone else holding the id learns nothing.
    if (!samePrincipal(session.principal, principal)) {
      return errorResponse(null, "Session not found", 404, base);
    }
    session.touch();
    this.table.used(session);
    return session;
  }

  /** One rebuild per session id at a time; undefined when no live record allows one. */
  private rebuild(id: string, principal: unknown): Promise<LegacySession | undefined> {
    let pending = this.rebuilding.get(id);
    if (!pending) {
      pending = this.load(id, principal).finally(() => this.rebuilding.delete(id));
      this.rebuilding.set(id, pending);
    }
    return pending;
  }

  private async load(id: string, principal: unknown): Promise<LegacySession | undefined> {
    if (this.member) return this.adopt(id, principal);
    const record = await this.records?.load(id);
    if (!record) return undefined;
    if (Date.now() - record.lastUsed > this.idleMs) {
      await this.records?.delete(id);
      await this.events.forgetSession(id);
      return undefined;
    }
    // Someone else holding the id learns nothing (and rebuilds nothing).
    if (record.principal !== principalKey(principal)) return undefined;
    const session = await LegacySession.rebuild(
      this.server,
      this.sessionOptions,
      principal,
      record,
    );
    if (this.closing || this.sessions.get(id)) {
      await session.suspend();
      return this.sessions.get(id);
    }
    this.sessions.set(id, session);
    this.table.add(session);
    return session;
  }

  /** A cluster session this instance holds no copy of: one made from the shared record. */
  private async adopt(id: string, principal: unknown): Promise<LegacySession | undefined> {
    const record = await this.member!.context.cluster.records.load(id);
    // Someone else holding the id learns nothing.
    if (!record || record.principal !== principalKey(principal)) return undefined;
    const session = LegacySession.adopt(this.server, this.sessionOptions, principal, record);
    if (this.closing || this.sessions.get(id)) {
      await session.detach();
      return this.sessions.get(id);
    }
    this.sessions.set(id, session);
    this.table.add(session);
    return session;
  }

  /** A message from another instance, for this instance's copy of a session (if it has one). */
  private heard(message: ClusterMessage): void {
    const session = this.sessions.get(message.session);
    if (!session) return;
    if (message.kind === "ended") this.forget(session);
    session.heard(message);
  }

  private checkVersion(headers: HeaderSource, session: LegacySession): string | undefined {
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
    const ttl = session.initialized ? this.idleMs : this.halfOpenMs;
    return !session.busy && Date.now() - session.lastSeen > ttl;
  }

  private expireIdle(): void {
    const now = Date.now();
    for (const session of this.sessions.values()) {
      if (session.busy) {
        session.touch();
        this.table.used(session);
        // An open stream sends no request that would notice a DELETE elsewhere.
        if (session.staleCopy(now)) this.recheckIdle(session);
      } else if (this.expired(session)) {
        void this.retire(session).catch((error) => this.server.reportError(error));
      }
    }
    if (this.member) return; // shared records expire by their TTL
    void this.expireRecords().catch((error) => this.server.reportError(error));
  }

  private recheckIdle(session: LegacySession): void {
    void session.recheck().then((alive) => {
      if (!alive && !session.closed) this.endedElsewhere(session);
    });
  }

  /**
   * An idle session goes; in a cluster only when it is idle everywhere (its shared record says
   * so): otherwise just this instance's copy goes.
   */
  private async retire(session: LegacySession): Promise<void> {
    if (!session.shared) return this.end(session);
    this.forget(session);
    let record: Awaited<ReturnType<typeof this.loadShared>>;
    try {
      record = await this.loadShared(session.id);
    } catch (error) {
      await session.detach();
      throw error;
    }
    const ttl = record?.state.initialized ? this.idleMs : this.halfOpenMs;
    const margin = this.sessionOptions.recordUseEveryMs;
    if (!record || Date.now() - record.lastUsed > ttl + margin) await session.close();
    else await session.detach();
  }

  private loadShared(id: string) {
    return this.member!.context.cluster.records.load(id);
  }

  /** Records nobody used for too long (held by no process, or by one that died) go. */
  private async expireRecords(): Promise<void> {
    const removed = (await this.records?.removeIdle?.(Date.now() - this.idleMs)) ?? [];
    for (const id of removed) {
      const held = this.sessions.get(id);
      // Alive here after all (its last use not written yet): it keeps its record.
      if (held && !held.closed) held.persist();
      else await this.events.forgetSession(id);
    }
  }

  private async end(session: LegacySession): Promise<void> {
    this.forget(session);
    await session.close();
  }

  private forget(session: LegacySession): void {
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
    this.table.remove(session);
  }
}
