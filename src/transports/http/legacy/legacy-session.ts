/**
 * One legacy Streamable HTTP session: its Transport (connected to the McpServer), its logical
 * SSE streams (POST replies and the standalone GET stream) and what it negotiated.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { isPlainObject } from "../../../jsonrpc/errors.js";
import type { JsonRpcResponse } from "../../../jsonrpc/types.js";
import type { ServerConnection } from "../../../server/connection.js";
import type { McpServer } from "../../../server/mcp-server.js";
import { HEADER } from "../headers.js";
import { formatSseEvent, SseStream } from "../sse.js";
import { type EventStore, parseEventId } from "./event-store.js";
import { ResumableStream } from "./resumable-stream.js";
import { LegacySessionTransport } from "./session-transport.js";

export interface LegacySessionOptions {
  store: EventStore;
  keepAliveMs: number;
  retryMs: number;
  principal: unknown;
}

/** Revisions whose clients understand the empty-data priming event. */
const PRIMING_SINCE = "2025-11-25";

/** A session id: 128 random bits, visible ASCII only (a UUID). */
export function newSessionId(): string {
  return randomUUID();
}

export type ResumeOutcome = { kind: "resumed"; response: Response } | { kind: "unknown" };

export class LegacySession {
  readonly id: string;
  readonly transport: LegacySessionTransport;
  readonly connection: ServerConnection;
  readonly principal: unknown;
  /** The version `initialize` negotiated; undefined until it has been answered. */
  protocolVersion: string | undefined;
  lastSeen = Date.now();
  private readonly options: LegacySessionOptions;
  private readonly streams = new Map<string, ResumableStream>();
  private standaloneStream: ResumableStream | undefined;
  private closing: Promise<void> | undefined;

  constructor(server: McpServer, options: LegacySessionOptions) {
    this.id = newSessionId();
    this.options = options;
    this.principal = options.principal;
    this.transport = new LegacySessionTransport({
      standalone: () => this.standaloneStream,
      initialized: (reply) => this.onInitialized(reply),
    });
    this.connection = server.connect(this.transport);
  }

  /** The headers of one response in this session: that request's CORS plus Mcp-Session-Id. */
  headersFor(base: Headers): Headers {
    const headers = new Headers(base);
    headers.set(HEADER.sessionId, this.id);
    return headers;
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  /** Something is in flight or connected: not idle, whatever the clock says. */
  get busy(): boolean {
    if (this.transport.inFlight > 0) return true;
    for (const stream of this.streams.values()) if (stream.connected) return true;
    return false;
  }

  touch(): void {
    this.lastSeen = Date.now();
  }

  /** A new logical stream, findable by its id until it has ended and disconnected. */
  newStream(): ResumableStream {
    // Random ids: a cursor from another session can never name one of ours by accident.
    const streamId = randomBytes(9).toString("base64url");
    const stream = new ResumableStream({
      sessionId: this.id,
      streamId,
      store: this.options.store,
      keepAliveMs: this.options.keepAliveMs,
      retryMs: this.options.retryMs,
      priming: (this.protocolVersion ?? "") >= PRIMING_SINCE,
      onFinished: () => {
        if (this.streams.get(streamId) === stream) this.streams.delete(streamId);
      },
    });
    this.streams.set(streamId, stream);
    return stream;
  }

  /** GET without Last-Event-ID: the standalone stream, unless one is connected already. */
  openStandalone(headers: Headers): Response | undefined {
    if (this.standaloneStream?.connected) return undefined;
    // A disconnected old stream the client chose not to resume is over.
    this.standaloneStream?.end();
    const stream = this.newStream();
    this.standaloneStream = stream;
    return stream.open(headers);
  }

  /** GET with Last-Event-ID: the rest of the stream it names, if it is one of ours. */
  async resume(lastEventId: string, base: Headers): Promise<ResumeOutcome> {
    const cursor = parseEventId(lastEventId.trim());
    if (!cursor) return { kind: "unknown" };
    const live = this.streams.get(cursor.streamId);
    if (live) {
      // A resume takes over: the old connection may be half-open (the client saw it break, the
      // server has not noticed yet), and it is closed so no event ever goes out twice at once.
      return { kind: "resumed", response: await live.resume(cursor.seq, base) };
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

  /** Ends the session: streams end, the server connection closes, stored events go. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const stream of [...this.streams.values()]) stream.end();
      this.standaloneStream = undefined;
      await this.connection.session.close();
      await this.options.store.forgetSession(this.id);
    })();
    return this.closing;
  }

  private onInitialized(reply: JsonRpcResponse): void {
    if (!("result" in reply)) return;
    const version = isPlainObject(reply.result) ? reply.result.protocolVersion : undefined;
    if (typeof version === "string") this.protocolVersion = version;
  }
}
