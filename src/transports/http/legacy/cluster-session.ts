/**
 * What one instance's copy of a legacy session does for the cluster: its state follows the
 * shared record (cluster-state.ts); answers and cancellations reach the instance that waits
 * for them; server-to-client request ids name the instance that sent them; the standalone GET
 * stream has one holder, and what is meant for it travels there; a stream written elsewhere is
 * resumed here from the shared event store.
 */

import type { JsonRpcId, JsonRpcMessage, JsonRpcNotification } from "../../../jsonrpc/types.js";
import { unref } from "../../../platform/scheduling.js";
import type { LegacySnapshot, ServerConnection } from "../../../server/connection.js";
import {
  type ClusterMessage,
  type ClusterSessionRecord,
  clusterRequestId,
  clusterStreamId,
  parseClusterRequestId,
  parseClusterStreamId,
} from "./cluster.js";
import { finishOrphan, replayUntilEnd, tailResponse } from "./cluster-resume.js";
import { type ClusterContext, ClusterSessionState } from "./cluster-state.js";
import type { ReplaySend, ResumableStream } from "./resumable-stream.js";
import type { LegacySessionTransport } from "./session-transport.js";

/** What the link needs of its session. */
export interface LinkedSession {
  readonly id: string;
  readonly connection: ServerConnection;
  readonly transport: LegacySessionTransport;
  standalone(): ResumableStream | undefined;
  /** Ends the standalone stream held here, if any (recording its end). */
  dropStandalone(): void;
  /** Disconnects this stream's connection, when it is held here. */
  disconnectStream(streamId: string): void;
  /** A new standalone stream held here, connected to a response that starts with `prelude`. */
  openStandaloneAfter(headers: Headers, prelude: (send: ReplaySend) => Promise<void>): Response;
  /** The session ended on another instance: end what is held here, writing nothing. */
  endedElsewhere(): void;
}

/** Sent by the holder of a standalone stream, never by copies that also heard the event. */
const BROADCASTS = new Set([
  "notifications/resources/updated",
  "notifications/resources/list_changed",
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  // Every instance holding a copy of the session that made the task hears its status.
  "notifications/tasks/status",
]);

/** Messages this process sent to standalone streams held elsewhere (their origins' numbers). */
let standaloneSent = 0;

export class ClusterSessionLink {
  readonly state: ClusterSessionState;
  private readonly context: ClusterContext;
  private readonly session: LinkedSession;
  /** Connections here following streams written elsewhere. */
  private readonly tails = new Set<AbortController>();
  /** When the shared record was last read here (made: the caller had just read or written it). */
  private checkedAt = Date.now();
  private checking: Promise<boolean> | undefined;

  constructor(
    context: ClusterContext,
    session: LinkedSession,
    principal: string | null,
    record?: ClusterSessionRecord,
  ) {
    this.context = context;
    this.session = session;
    this.state = new ClusterSessionState(context, session.id, principal, record);
  }

  get tailing(): boolean {
    return this.tails.size > 0;
  }

  /** This copy has served from memory longer than `recordCheckMs`: read the record first. */
  stale(now: number): boolean {
    return now - this.checkedAt > this.context.recordCheckMs;
  }

  /**
   * Reads the shared record (once for every caller meanwhile): false when it is gone, the
   * session having ended elsewhere; a newer state than this copy's is taken. The bus makes
   * this rarely news; it bounds what a lost bus message costs. When the store cannot be
   * reached the copy goes on (true), as with every request it serves without a shared write.
   */
  recheck(): Promise<boolean> {
    this.checking ??= this.context.cluster.records
      .load(this.session.id)
      .then(
        (record) => {
          if (!record) return false;
          if (this.state.heard(record.state, record.version)) {
            this.session.connection.updateLegacy(record.state);
          }
          return true;
        },
        (error: Error) => {
          this.context.report(error);
          return true;
        },
      )
      .finally(() => {
        this.checkedAt = Date.now();
        this.checking = undefined;
      });
    return this.checking;
  }

  /**
   * The id of a new stream of this instance, and when it is registered: a request stream is
   * named in the store (with its request) before the client hears of it.
   */
  newStream(requestId: JsonRpcId | undefined): { streamId: string; registered: Promise<void> } {
    const streamId = clusterStreamId(this.context.instanceId, requestId === undefined);
    if (requestId === undefined) return { streamId, registered: Promise.resolve() };
    const { records } = this.context.cluster;
    const entry = { id: streamId, requestId };
    const registered = records.setStream(this.session.id, entry, this.context.ttlMs);
    registered.catch(this.context.report);
    return { streamId, registered };
  }

  markEnd(streamId: string): () => Promise<void> {
    return () => this.context.cluster.events.endStream(this.session.id, streamId);
  }

  /** The session's state changed here: stored, then announced. */
  sync(): Promise<boolean> | undefined {
    const local = this.session.connection.legacySnapshot();
    if (!local) return undefined;
    return this.state.sync(local, (merged) => this.session.connection.updateLegacy(merged));
  }

  /**
   * A client message that may belong elsewhere: a promise when it went there (resolved once
   * sent), else what to deliver here (an answer's id turned back into the one this instance's
   * session sent).
   */
  inbound(message: JsonRpcMessage): JsonRpcMessage | Promise<void> {
    if (!("method" in message)) {
      const sent = parseClusterRequestId(message.id);
      if (!sent) return message;
      if (sent.owner === this.context.instanceId) return { ...message, id: sent.local };
      const session = this.session.id;
      return this.context.publish({ kind: "answer", session, to: sent.owner, message });
    }
    if (message.method === "notifications/cancelled" && !("id" in message)) {
      const requestId = message.params?.requestId;
      const known =
        (typeof requestId === "string" || typeof requestId === "number") &&
        this.session.transport.has(requestId);
      if (!known)
        return this.context.publish({ kind: "cancel", session: this.session.id, message });
    }
    return message;
  }

  /** Server-to-client request ids (and our cancellations of them) name this instance. */
  outbound(message: JsonRpcMessage): JsonRpcMessage {
    if (!("method" in message)) return message;
    if ("id" in message && typeof message.id === "number") {
      return { ...message, id: clusterRequestId(this.context.instanceId, message.id) };
    }
    const requestId = message.params?.requestId;
    if (message.method === "notifications/cancelled" && typeof requestId === "number") {
      const params = {
        ...message.params,
        requestId: clusterRequestId(this.context.instanceId, requestId),
      };
      return { ...message, params };
    }
    return message;
  }

  /**
   * A message for a standalone stream not held here: a change every instance heard is left to
   * the holder (one copy reaches the client); anything else travels there.
   */
  elsewhere(message: JsonRpcMessage, origin?: string): Promise<void> {
    if ("method" in message && !("id" in message) && BROADCASTS.has(message.method)) {
      return Promise.resolve();
    }
    standaloneSent += 1;
    return this.context.publish({
      kind: "standalone",
      session: this.session.id,
      message,
      origin: origin ?? `${this.context.instanceId}.${standaloneSent}`,
    });
  }

  /** A new standalone stream here: whoever held one before lets it go (the newest GET wins). */
  standaloneOpened(streamId: string): void {
    void this.context.publish({ kind: "takeover", session: this.session.id, stream: streamId });
  }

  /**
   * GET with a cursor into a stream this instance does not hold: a request stream is followed
   * from the store (finished first when its instance is dead); a standalone stream moves here.
   */
  async resume(
    streamId: string,
    afterSeq: number,
    headers: Headers,
    keepAliveMs: number,
  ): Promise<Response | undefined> {
    const parsed = parseClusterStreamId(streamId);
    if (!parsed) return undefined;
    const { events, leases, records } = this.context.cluster;
    const sessionId = this.session.id;
    const elsewhere = parsed.owner !== this.context.instanceId;
    const ownerAlive = elsewhere && (await leases.alive(parsed.owner));
    if (parsed.standalone) {
      // Only a stream the store knows (a cursor is the client's word): nothing is written
      // for a made-up one, which gets a fresh standalone stream instead.
      if (!(await events.eventsAfter(sessionId, streamId, afterSeq))) return undefined;
      const { signal, done } = this.follow();
      if (ownerAlive) {
        void this.context.publish({ kind: "takeover", session: sessionId, stream: streamId });
        this.watchOwner(parsed.owner, signal, () => events.endStream(sessionId, streamId));
      } else {
        await events.endStream(sessionId, streamId);
      }
      return this.session.openStandaloneAfter(headers, (send) =>
        replayUntilEnd(events, sessionId, streamId, afterSeq, signal, send).finally(done),
      );
    }
    const entry = await records.stream(sessionId, streamId);
    if (entry?.requestId === undefined) return undefined;
    const { requestId } = entry;
    const { signal, done } = this.follow();
    if (ownerAlive) {
      void this.context.publish({ kind: "takeover", session: sessionId, stream: streamId });
      // Should it die before the stream's end, nobody else would end it.
      this.watchOwner(parsed.owner, signal, () =>
        finishOrphan(events, sessionId, streamId, requestId),
      );
    } else {
      await finishOrphan(events, sessionId, streamId, requestId);
    }
    return tailResponse({
      events,
      sessionId,
      streamId,
      afterSeq,
      keepAliveMs,
      headers,
      signal,
      onDone: done,
    });
  }

  /** A message from another instance about this session. */
  heard(message: ClusterMessage): void {
    const { session } = this;
    switch (message.kind) {
      case "answer":
        if (message.to === this.context.instanceId) {
          const local = this.inbound(message.message);
          if (!(local instanceof Promise)) session.transport.deliver(local, {});
        }
        return;
      case "cancel": {
        const requestId = message.message.params?.requestId;
        if (
          (typeof requestId === "string" || typeof requestId === "number") &&
          session.transport.has(requestId)
        ) {
          session.transport.deliver(message.message as JsonRpcNotification, {});
        }
        return;
      }
      case "state":
        if (this.state.heard(message.state, message.version)) {
          session.connection.updateLegacy(message.state as LegacySnapshot);
        }
        return;
      case "takeover":
        // Another instance holds the standalone stream now (this one's, or a new one).
        if (parseClusterStreamId(message.stream)?.standalone) session.dropStandalone();
        else {
          session.disconnectStream(message.stream);
        }
        return;
      case "standalone": {
        const held = session.standalone();
        // Its ids already name the instance that sent it (answers go back there).
        if (held) void held.write(message.message, message.origin);
        return;
      }
      case "ended":
        session.endedElsewhere();
        return;
    }
  }

  /**
   * The session ended here (DELETE, expiry): its record and events go, and every instance
   * hears it. Rejects when the store could not be reached (the session then lives on elsewhere
   * until its record expires).
   */
  async end(): Promise<void> {
    const { records, events } = this.context.cluster;
    await records.delete(this.session.id);
    await events.forgetSession(this.session.id);
    await this.context.publish({ kind: "ended", session: this.session.id });
  }

  /** Ends every connection here that follows a stream written elsewhere. */
  stopFollowing(): void {
    for (const tail of [...this.tails]) tail.abort();
    this.tails.clear();
  }

  private follow(): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    this.tails.add(controller);
    return {
      signal: controller.signal,
      done: () => {
        this.tails.delete(controller);
        controller.abort();
      },
    };
  }

  /** Checks once per lease whether `owner` lives, until `signal` aborts; `finish` if not. */
  private watchOwner(owner: string, signal: AbortSignal, finish: () => Promise<void>): void {
    const { leases } = this.context.cluster;
    const timer = setInterval(() => {
      void leases
        .alive(owner)
        .then((alive) => (alive ? undefined : finish()))
        .catch(this.context.report);
    }, this.context.leaseMs);
    unref(timer);
    signal.addEventListener("abort", () => clearInterval(timer), { once: true });
  }
}
