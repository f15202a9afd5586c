/**
 * What a legacy Streamable HTTP endpoint can be told: lifetimes and limits of its sessions, and
 * where their events and records are kept.
 */
import type { LegacyCluster } from "./cluster.js";
import type { EventStore } from "./event-store.js";
import type { LegacySession } from "./legacy-session.js";
import type { SessionRecordStore } from "./session-records.js";
import type { SessionStore } from "./session-store.js";

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
  /**
   * Sessions at once. A new `initialize` beyond this ends the least recently used idle session
   * (half-open ones first; no stream open, no request in flight); 503 only when all are busy.
   * Default 10,000.
   */
  maxSessions?: number;
  /**
   * A session whose client never sent `notifications/initialized` expires after this long
   * unused (ms), so half-open sessions cannot hold the table for the whole idle period.
   * Default 30 s.
   */
  halfOpenSessionMs?: number;
  /**
   * Whose session a new `initialize` opens, for the per-owner cap (e.g. the authenticated
   * user, a tenant or API key); undefined leaves the session unkeyed. Default: none.
   */
  sessionOwner?(request: Request, principal: unknown): string | undefined;
  /**
   * Sessions one owner (sessionOwner) may hold; its next `initialize` ends its own least
   * recently used idle session, or gets 429 when all of them are busy. Default: no cap.
   */
  maxSessionsPerOwner?: number;
  /**
   * Where session records are kept, so that a process which does not hold a session (a
   * restarted server) rebuilds it on its next request, without a new `initialize`. Pass a
   * durable one (FileSessionRecordStore, with a FileEventStore as `eventStore`) to survive
   * restarts: `close()` then suspends sessions instead of ending them. Default: none (sessions
   * live in this process only, and `close()` ends every session).
   */
  sessionRecords?: SessionRecordStore;
  /**
   * When `sessionRecords` is given: how long `close()` lets running requests finish (their
   * events still go to the event store) before it stops them. Default 5 s.
   */
  shutdownGraceMs?: number;
  /**
   * Makes this endpoint one instance of a cluster: every instance given the same shared state
   * serves every session, any request on any instance (no affinity needed). Replaces
   * `eventStore` and `sessionRecords`. See docs/cluster.md. Default: none.
   */
  cluster?: LegacyCluster;
}
