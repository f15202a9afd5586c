/**
 * One legacy Streamable HTTP session: its Transport (connected to the McpServer), its logical
 * SSE streams (POST replies and the standalone GET stream) and what it negotiated. A record of it
 * is kept in a SessionRecordStore, so that another process can rebuild it after a restart.
 */
import { ErrorCode, isPlainObject, LocalError } from "../../../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcMessage, JsonRpcResponse } from "../../../jsonrpc/types.js";
import { base64url } from "../../../platform/bytes.js";
import { HEADER } from "../../../protocol/http-headers.js";
import type { MessageContext } from "../../../protocol/transport.js";
import type { ServerConnection } from "../../../server/connection.js";
import type { McpServerBase } from "../../../server/mcp-server.js";
import type { HeaderPairs } from "../security.js";
import { formatSseEvent, SseStream } from "../sse.js";
import type { ClusterMessage, ClusterSessionRecord } from "./cluster.js";
import { ClusterSessionLink, type LinkedSession } from "./cluster-session.js";
import type { ClusterContext } from "./cluster-state.js";
import { type EventStore, parseEventId } from "./event-store.js";
import { RESTARTED_BEFORE_REPLY } from "./legacy-responses.js";
import { type ReplaySend, ResumableStream } from "./resumable-stream.js";
import {
  principalKey,
  RecordWriter,
  type SessionRecord,
  type SessionRecordStore,
} from "./session-records.js";
import { LegacySessionTransport, type SessionTransportHost } from "./session-transport.js";

/** Settings every session of one handler shares (one object for them all). */
export interface LegacySessionOptions {
  store: EventStore;
  /** Where the session's record goes; none without a configured store (nothing could use it). */
  records: SessionRecordStore | undefined;
  keepAliveMs: number;
  maxBacklogBytes: number;
  retryMs: number;
  /** A use is written to the record when the last one written is older than this (ms). */
  recordUseEveryMs: number;
  /** Where failures to write the record, and clients that do not read their streams, go. */
  onError(error: Error): void;
  /** Set when this handler is one instance of a cluster (LegacyOptions.cluster). */
  cluster?: ClusterContext;
}

export { RESTARTED_BEFORE_REPLY } from "./legacy-responses.js";

/** Methods whose success changes what the session keeps (so the record is written again). */
const STATE_METHODS = new Set([
  "initialize",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
]);

/** Revisions whose clients understand the empty-data priming event. */
const PRIMING_SINCE = "2025-11-25";

/** A session id: 128 random bits, visible ASCII only (a UUID). */
function newSessionId(): string {
  return globalThis.crypto.randomUUID();
}

const STREAM_ID_BYTES = 9;
/**
 * Random bytes for stream ids, drawn 512 ids at a time: a randomBytes(9) call per stream (one
 * per POST answered with SSE) was 9 % of a busy legacy server's CPU.
 */
const streamIdPool = new Uint8Array(STREAM_ID_BYTES * 512);
let streamIdAt = streamIdPool.length;

/** A stream id: 72 random bits, base64url. */
function newStreamId(): string {
  if (streamIdAt === streamIdPool.length) {
    globalThis.crypto.getRandomValues(streamIdPool);
    streamIdAt = 0;
  }
  const id = base64url(streamIdPool.subarray(streamIdAt, streamIdAt + STREAM_ID_BYTES));
  streamIdAt += STREAM_ID_BYTES;
  return id;
}

type ResumeOutcome = { kind: "resumed"; response: Response } | { kind: "unknown" };

/** Its own transport's host: nothing per session but the objects themselves. */
export class LegacySession implements SessionTransportHost, LinkedSession {
  readonly id: string;
  readonly transport: LegacySessionTransport;
  readonly connection: ServerConnection;
  readonly principal: unknown;
  /** The version `initialize` negotiated; undefined until it has been answered. */
  protocolVersion: string | undefined;
  /** `notifications/initialized` has arrived: until then the session is half-open. */
  initialized = false;
  /** Whose session this is for the per-owner cap (LegacyOptions.sessionOwner), if keyed. */
  owner: string | undefined;
  lastSeen = Date.now();
  private readonly options: LegacySessionOptions;
  /**
   * The session's logical streams by id; made with the first one. A null-prototype object,
   * not a Map: one stream comes and goes per SSE answer, and a long-lived Map with that churn
   * rehashes its table in old space, where each discarded table keeps the streams it listed
   * alive through scavenges (bench/RESULTS.md, R6).
   */
  private streams: Record<string, ResumableStream> | undefined;
  private standaloneStream: ResumableStream | undefined;
  private closing: Promise<void> | undefined;
  private readonly recorder: RecordWriter | undefined;
  /** The principal as the record keeps it; undefined when it cannot be (no record then). */
  private readonly principalJson: string | null | undefined;
  private recordedUse = 0;
  /** Set while a rebuild restores streams: one record is written at the end instead. */
  private restoring = false;
  /** In a cluster: this instance's part in the shared session (none without a JSON principal). */
  private link: ClusterSessionLink | undefined;

  /**
   * `principal`: who opened the session (only they may use it); `id`: the id of a session being
   * rebuilt; a new one is minted otherwise.
   */
  constructor(
    server: McpServerBase,
    options: LegacySessionOptions,
    principal: unknown,
    id?: string,
    shared?: ClusterSessionRecord,
  ) {
    this.id = id ?? newSessionId();
    this.options = options;
    this.principal = principal;
    this.principalJson = principalKey(principal);
    this.recorder = options.records && new RecordWriter(options.records, options.onError);
    this.transport = new LegacySessionTransport(this);
    this.connection = server.serve(this.transport);
    if (options.cluster && this.principalJson !== undefined) {
      this.link = new ClusterSessionLink(options.cluster, this, this.principalJson, shared);
    }
  }

  /**
   * This instance's copy of a cluster session it has not seen before (no `initialize`): the
   * state comes from the shared record; streams stay where they are written.
   */
  static adopt(
    server: McpServerBase,
    options: LegacySessionOptions,
    principal: unknown,
    record: ClusterSessionRecord,
  ): LegacySession {
    const session = new LegacySession(server, options, principal, record.id, record);
    session.connection.restoreLegacy(record.state);
    session.protocolVersion = record.state.protocolVersion;
    session.initialized = record.state.initialized;
    return session;
  }

  /** Whether this session is shared with other instances. */
  get shared(): boolean {
    return this.link !== undefined;
  }

  /** In a cluster: this copy last read the shared record longer ago than allowed. */
  staleCopy(now: number): boolean {
    return this.link?.stale(now) ?? false;
  }

  /** In a cluster: reads the shared record again; false when the session ended elsewhere. */
  recheck(): Promise<boolean> {
    return this.link?.recheck() ?? Promise.resolve(true);
  }

  /** In a cluster: resolves true once every change of the shared record so far has landed. */
  stateStored(): Promise<boolean> {
    return this.link?.state.settled() ?? Promise.resolve(true);
  }

  /**
   * Carries on a session that another process (or handler) recorded: the connection takes the
   * negotiated state without an `initialize`, the standalone stream continues where it was, and
   * each request stream left without its reply gets an error reply (RESTARTED_BEFORE_REPLY) so
   * that a client resuming it hears the end; streams that have their reply are served from the
   * event store as they are.
   */
  static async rebuild(
    server: McpServerBase,
    options: LegacySessionOptions,
    principal: unknown,
    record: SessionRecord,
  ): Promise<LegacySession> {
    const session = new LegacySession(server, options, principal, record.id);
    session.connection.restoreLegacy(record.state);
    session.protocolVersion = record.state.protocolVersion;
    session.initialized = record.state.initialized;
    session.restoring = true;
    try {
      for (const { id, requestId } of record.streams) {
        await session.restoreStream(id, requestId);
      }
    } finally {
      session.restoring = false;
    }
    session.lastSeen = Date.now();
    session.persist();
    return session;
  }

  /** The headers of one response in this session: that request's CORS plus Mcp-Session-Id. */
  headersFor(base: Headers): Headers {
    const headers = new Headers(base);
    headers.set(HEADER.sessionId, this.id);
    return headers;
  }

  /** Internal: headersFor as the node:http fast path keeps headers (lowercase, as on the wire). */
  pairsFor(base: HeaderPairs): HeaderPairs {
    return [...base, ["mcp-session-id", this.id]];
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  /** Something is in flight or connected: not idle, whatever the clock says. */
  get busy(): boolean {
    if (this.transport.inFlight > 0 || this.link?.tailing) return true;
    for (const stream of this.liveStreams()) if (stream.connected) return true;
    return false;
  }

  touch(): void {
    this.lastSeen = Date.now();
    if (this.lastSeen - this.recordedUse < this.options.recordUseEveryMs) return;
    if (!this.link) {
      this.persist();
      return;
    }
    this.recordedUse = this.lastSeen;
    this.link.state.touch(this.lastSeen);
  }

  /**
   * A client notification or answer; `initialized` changes what the record keeps. In a
   * cluster: resolves once that change is stored (answers and cancellations for requests of
   * another instance travel there).
   */
  deliver(message: JsonRpcMessage, context: MessageContext): Promise<unknown> | undefined {
    const local = this.link ? this.link.inbound(message) : message;
    if (local instanceof Promise) return local;
    this.transport.deliver(local, context);
    if ("method" in local && local.method === "notifications/initialized") {
      this.initialized = true;
      return this.persist();
    }
    return undefined;
  }

  /**
   * A new logical stream (answering `requestId`, or the standalone one), findable by its id
   * until it has ended and disconnected. The record names it before its first event id exists.
   */
  newStream(
    requestId?: JsonRpcId,
    restored?: { streamId: string; lastSeq: number },
  ): ResumableStream {
    // Random ids: a cursor from another session can never name one of ours by accident.
    const shared = restored ? undefined : this.link?.newStream(requestId);
    const streamId = restored?.streamId ?? shared?.streamId ?? newStreamId();
    const stream = new ResumableStream({
      sessionId: this.id,
      streamId,
      requestId,
      store: this.options.store,
      keepAliveMs: this.options.keepAliveMs,
      maxBacklogBytes: this.options.maxBacklogBytes,
      onUnread: (backlog) =>
        this.options.onError(
          new LocalError(
            "transport",
            `closed an SSE connection of a legacy session its client was not reading (${backlog} bytes waiting); the client may resume it`,
            { peerFault: "response stream not read" },
          ),
        ),
      retryMs: this.options.retryMs,
      priming: (this.protocolVersion ?? "") >= PRIMING_SINCE,
      initialSeq: restored?.lastSeq,
      markEnd: this.link?.markEnd(streamId),
      registered: shared?.registered,
      // No record write here: the next one leaves the stream out, and until then a rebuild
      // finds its reply in the event store and leaves it alone (one write per stream, not two).
      onFinished: () => {
        if (this.streams?.[streamId] === stream) delete this.streams[streamId];
      },
    });
    this.streams ??= Object.create(null) as Record<string, ResumableStream>;
    this.streams[streamId] = stream;
    if (!this.link) this.persist();
    return stream;
  }

  /**
   * Ends every live connection (not the streams), asking clients to come back after `retryMs`:
   * used when the server shuts down for a restart.
   */
  disconnectStreams(retryMs = this.options.retryMs): void {
    for (const stream of this.liveStreams()) stream.disconnect(retryMs);
  }

  /** GET without Last-Event-ID: the standalone stream, unless one is connected already. */
  openStandalone(headers: Headers): Response | undefined {
    if (this.standaloneStream?.connected) return undefined;
    // A disconnected old stream the client chose not to resume is over.
    this.standaloneStream?.end();
    const stream = this.newStream();
    this.standaloneStream = stream;
    this.link?.standaloneOpened(stream.id);
    return stream.open(headers);
  }

  /** LinkedSession: a standalone stream taken over here, after the rest of the old one. */
  openStandaloneAfter(headers: Headers, prelude: (send: ReplaySend) => Promise<void>): Response {
    this.standaloneStream?.end();
    const stream = this.newStream();
    this.standaloneStream = stream;
    return stream.openAfter(headers, prelude);
  }

  /** LinkedSession: another instance holds the standalone stream now. */
  dropStandalone(): void {
    const stream = this.standaloneStream;
    this.standaloneStream = undefined;
    stream?.end();
  }

  /** LinkedSession: a client resumed this stream on another instance. */
  disconnectStream(streamId: string): void {
    this.streams?.[streamId]?.disconnect();
  }

  /** LinkedSession: a message from another instance about this session. */
  heard(message: ClusterMessage): void {
    if (!this.closed) this.link?.heard(message);
  }

  /** LinkedSession: ended on another instance: what is here ends, nothing is written. */
  endedElsewhere(): void {
    void this.release(true);
  }

  /**
   * Lets go of this instance's copy of a cluster session, which carries on elsewhere (idle
   * here, or taken out to make room): nothing shared is written or deleted.
   */
  detach(): Promise<void> {
    return this.release(false);
  }

  /** GET with Last-Event-ID: the rest of the stream it names, if it is one of ours. */
  async resume(lastEventId: string, base: Headers): Promise<ResumeOutcome> {
    const cursor = parseEventId(lastEventId.trim());
    if (!cursor) return { kind: "unknown" };
    const live = this.streams?.[cursor.streamId];
    if (live) {
      // A resume takes over: the old connection may be half-open (the client saw it break, the
      // server has not noticed yet), and it is closed so no event ever goes out twice at once.
      return { kind: "resumed", response: await live.resume(cursor.seq, base) };
    }
    if (this.link) {
      const { streamId, seq } = cursor;
      const response = await this.link.resume(streamId, seq, base, this.options.keepAliveMs);
      return response ? { kind: "resumed", response } : { kind: "unknown" };
    }
    // Ended and dropped from memory: replay what the store kept, then end.
    const events = await this.options.store.eventsAfter(this.id, cursor.streamId, cursor.seq);
    if (!events) return { kind: "unknown" };
    const replay = new SseStream({ keepAliveMs: 0, onCancel: () => {} });
    for (const event of events) void replay.writeText(formatSseEvent(event.message, event.id));
    replay.end();
    const headers = new Headers(base);
    headers.set("Content-Type", "text/event-stream");
    headers.set("Cache-Control", "no-cache, no-transform");
    return { kind: "resumed", response: new Response(replay.body, { status: 200, headers }) };
  }

  /** Ends the session: streams end, the server connection closes, its record and events go. */
  close(): Promise<void> {
    const link = this.link;
    if (link) {
      this.closing ??= (async () => {
        link.state.stop();
        link.stopFollowing();
        for (const stream of this.liveStreams()) stream.end(true);
        this.standaloneStream = undefined;
        await this.connection.session.close();
        await link.end();
      })();
      return this.closing;
    }
    this.closing ??= (async () => {
      this.recorder?.freeze();
      for (const stream of this.liveStreams()) stream.end();
      this.standaloneStream = undefined;
      await this.connection.session.close();
      await this.recorder?.delete(this.id);
      await this.options.store.forgetSession(this.id);
    })();
    return this.closing;
  }

  /**
   * Lets go of the session in this process but not of the session itself: the record keeps
   * naming the streams still open, their events stay stored, and whichever process gets the
   * next request for it rebuilds it. Requests still running are stopped (see `rebuild`).
   */
  suspend(): Promise<void> {
    if (this.link) return this.leave();
    this.closing ??= (async () => {
      this.persist();
      this.recorder?.freeze();
      const streams = this.liveStreams();
      await this.connection.session.close();
      for (const stream of streams) stream.disconnect();
      await Promise.all(streams.map((stream) => stream.settled()));
      await this.recorder?.settled();
    })();
    return this.closing;
  }

  /**
   * A cluster instance going away: requests still running get their error reply (the grace
   * period is over), streams record their end, the shared session carries on elsewhere.
   */
  private leave(): Promise<void> {
    this.closing ??= (async () => {
      this.link?.state.stop();
      this.link?.stopFollowing();
      const streams = this.liveStreams();
      for (const stream of streams) {
        if (stream.finished) continue;
        if (stream.requestId !== undefined) {
          const error = { code: ErrorCode.InternalError, message: RESTARTED_BEFORE_REPLY };
          void stream.write({ jsonrpc: "2.0", id: stream.requestId, error });
        }
        stream.end();
      }
      this.standaloneStream = undefined;
      await this.connection.session.close();
      await Promise.all(streams.map((stream) => stream.settled()));
    })();
    return this.closing;
  }

  /** Drops this instance's copy; `quiet`: the session ended, so nothing is recorded at all. */
  private release(quiet: boolean): Promise<void> {
    this.closing ??= (async () => {
      this.link?.state.stop();
      this.link?.stopFollowing();
      const streams = this.liveStreams();
      for (const stream of streams) stream.end(quiet);
      this.standaloneStream = undefined;
      await this.connection.session.close();
      await Promise.all(streams.map((stream) => stream.settled()));
    })();
    return this.closing;
  }

  /**
   * Writes the record as things are now (nothing before `initialize` has been answered). In a
   * cluster: the shared state, resolving once stored.
   */
  persist(): Promise<boolean> | undefined {
    if (this.link) return this.link.sync();
    if (!this.recorder || this.restoring || this.principalJson === undefined) return;
    const state = this.connection.legacySnapshot();
    if (!state) return;
    const streams = this.liveStreams().map((stream) =>
      stream.requestId === undefined
        ? { id: stream.id }
        : { id: stream.id, requestId: stream.requestId },
    );
    this.recordedUse = this.lastSeen;
    this.recorder.save({
      id: this.id,
      principal: this.principalJson,
      state,
      streams,
      lastUsed: this.lastSeen,
    });
  }

  private async restoreStream(streamId: string, requestId: JsonRpcId | undefined): Promise<void> {
    const stored = (await this.options.store.eventsAfter(this.id, streamId, 0)) ?? [];
    const lastSeq = stored.reduce((last, event) => Math.max(last, event.seq), 0);
    if (requestId === undefined) {
      this.standaloneStream = this.newStream(undefined, { streamId, lastSeq });
      return;
    }
    const answered = stored.some(
      ({ message }) => !("method" in message) && message.id === requestId,
    );
    // An answered stream is replayed from the store like any finished one.
    if (answered) return;
    const stream = this.newStream(requestId, { streamId, lastSeq });
    const error = { code: ErrorCode.InternalError, message: RESTARTED_BEFORE_REPLY };
    void stream.write({ jsonrpc: "2.0", id: requestId, error });
    stream.end();
    await stream.settled();
  }

  /** The streams held now (a copy: ending one removes it). */
  private liveStreams(): ResumableStream[] {
    return this.streams ? Object.values(this.streams) : [];
  }

  /** SessionTransportHost: the standalone GET stream, when the client opened one. */
  standalone(): ResumableStream | undefined {
    return this.standaloneStream;
  }

  /** SessionTransportHost: a reply passed through; some change what the record keeps. */
  replied(method: string, reply: JsonRpcResponse): Promise<boolean> | undefined {
    if (!("result" in reply)) return;
    if (method === "initialize") {
      const version = isPlainObject(reply.result) ? reply.result.protocolVersion : undefined;
      if (typeof version === "string") this.protocolVersion = version;
    }
    return STATE_METHODS.has(method) ? this.persist() : undefined;
  }

  /** SessionTransportHost: ids of server-to-client requests name this instance. */
  outbound(message: JsonRpcMessage): JsonRpcMessage {
    return this.link ? this.link.outbound(message) : message;
  }

  /** SessionTransportHost: the standalone stream is held by another instance, if any. */
  elsewhere(message: JsonRpcMessage, origin?: string): Promise<void> | undefined {
    return this.link?.elsewhere(message, origin);
  }
}
