/**
 * Legacy Streamable HTTP sessions served by several instances at once (a cluster behind a load
 * balancer without affinity). What the instances share, as small async interfaces: session
 * records with a version for compare-and-set, an event store that can tail a stream, a bus for
 * what must reach the instance that waits for it, and instance leases. In-memory versions
 * (cluster-memory.ts) let several handlers in one process act as instances; mcpwire/redis has
 * the Redis ones. See docs/cluster.md.
 */

import type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcResponse,
} from "../../../jsonrpc/types.js";
import { base64url, randomBytes } from "../../../platform/bytes.js";
import type { LegacySnapshot } from "../../../server/connection.js";
import type { EventStore, StoredEvent } from "./event-store.js";
import type { StreamRecord } from "./session-records.js";

/** A session as every instance sees it; streams are kept apart (see ClusterRecordStore). */
export interface ClusterSessionRecord {
  id: string;
  /** The principal that opened the session, as JSON (null when there was none). */
  principal: string | null;
  state: LegacySnapshot;
  /** Last use (ms since the epoch) written by any instance, now and then. */
  lastUsed: number;
  /** Raised by every replace: two instances changing the state at once never lose an update. */
  version: number;
}

export interface ClusterRecordStore {
  /** Writes a new session's record (version 1), alive for `ttlMs` unless used. */
  create(record: Omit<ClusterSessionRecord, "version">, ttlMs: number): Promise<void>;
  load(id: string): Promise<ClusterSessionRecord | undefined>;
  /**
   * Compare-and-set: writes `record` with version + 1 when the stored version is still
   * `record.version`; false when another instance changed it first, or it is gone.
   */
  replace(record: ClusterSessionRecord, ttlMs: number): Promise<boolean>;
  /** A use: `lastUsed` and the TTL are refreshed; nothing happens when the record is gone. */
  touch(id: string, lastUsed: number, ttlMs: number): Promise<void>;
  /** The record and its stream entries go. */
  delete(id: string): Promise<void>;
  /** Names a request stream (its owner is in its id) so a resume elsewhere knows its request. */
  setStream(sessionId: string, stream: StreamRecord, ttlMs: number): Promise<void>;
  stream(sessionId: string, streamId: string): Promise<StreamRecord | undefined>;
}

/** An append whose sequence number another writer took first (or after the stream's end). */
export class AppendConflict extends Error {
  constructor(streamId: string, seq: number) {
    super(`stream ${streamId} already has an event ${seq} or has ended`);
    this.name = "AppendConflict";
  }
}

export interface ClusterEventStore extends EventStore {
  /** Rejects with AppendConflict when `event.seq` is not above the newest, or the stream ended. */
  append(sessionId: string, streamId: string, event: StoredEvent): Promise<void>;
  /** Marks the stream complete: tails end there, and later appends conflict. Idempotent. */
  endStream(sessionId: string, streamId: string): Promise<void>;
  /** The newest event (undefined for none) and whether the stream has ended. */
  last(sessionId: string, streamId: string): Promise<{ event?: StoredEvent; ended: boolean }>;
  /**
   * The events after `afterSeq`, then each new one as it is appended, until the stream's end
   * (or `signal` aborts).
   */
  tail(
    sessionId: string,
    streamId: string,
    afterSeq: number,
    signal: AbortSignal,
  ): AsyncIterable<StoredEvent>;
}

/** What one instance tells the others about a session. `from`: the sender's instance id. */
export type ClusterMessage = { from: string; session: string } & (
  | /** A client's answer to a server-to-client request that instance `to` sent. */
  { kind: "answer"; to: string; message: JsonRpcResponse }
  /** `notifications/cancelled` for a request running wherever it runs. */
  | { kind: "cancel"; message: JsonRpcNotification }
  /** DELETE or expiry: end what you hold of it. */
  | { kind: "ended" }
  /** logging/setLevel, resources/(un)subscribe, initialized: the new state. */
  | { kind: "state"; state: LegacySnapshot; version: number }
  /** A client resumed this stream elsewhere: stop writing to its connection here. */
  | { kind: "takeover"; stream: string }
  /**
   * A message for the standalone GET stream, for whichever instance holds it; `origin` names
   * it alike wherever it is heard (two instances may both hold the stream for a moment).
   */
  | { kind: "standalone"; message: JsonRpcMessage; origin: string }
);

export interface ClusterBus {
  /** Reaches every instance (the sender included; it ignores its own). */
  publish(message: ClusterMessage): Promise<void>;
  /** Resolves once listening; with the function that stops it. */
  subscribe(listener: (message: ClusterMessage) => void): Promise<() => Promise<void>>;
}

export interface InstanceLeases {
  /** Keeps `instanceId` alive for `ttlMs` more. */
  renew(instanceId: string, ttlMs: number): Promise<void>;
  alive(instanceId: string): Promise<boolean>;
  /** The instance is going away: its streams are no longer anyone's. */
  release(instanceId: string): Promise<void>;
}

/** LegacyOptions.cluster: the shared state one instance works with. */
export interface LegacyCluster {
  /** This instance's id ([A-Za-z0-9_-], unique in the cluster). Default: random. */
  instanceId?: string;
  records: ClusterRecordStore;
  events: ClusterEventStore;
  bus: ClusterBus;
  leases: InstanceLeases;
  /**
   * How long an instance that stopped renewing stays alive to the others (ms): after it, a
   * resume of one of its unanswered streams gets RESTARTED_BEFORE_REPLY. Default 10 s.
   */
  leaseMs?: number;
  /**
   * How stale this instance's copy of a session may get (ms): a request on a copy whose
   * shared record was last read longer ago reads it again first, so a session deleted (or
   * changed) elsewhere is seen here even when the bus message announcing it was lost. The
   * sweeper does the same for copies with an open stream. Default 5 s.
   */
  recordCheckMs?: number;
  /** Called when the instance leaves the cluster (to close connections of its own). */
  close?(): Promise<void>;
}

const INSTANCE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function newInstanceId(): string {
  return base64url(randomBytes(6));
}

export function checkInstanceId(id: string): string {
  if (!INSTANCE_ID.test(id)) {
    throw new TypeError(`cluster instanceId must match ${INSTANCE_ID} (got ${JSON.stringify(id)})`);
  }
  return id;
}

/**
 * Cluster stream ids carry who writes them and what they are, so that a resume anywhere knows
 * without a read: `<instance>.<g|r><random>` (g: the standalone GET stream, r: a POST reply).
 */
export function clusterStreamId(instanceId: string, standalone: boolean): string {
  return `${instanceId}.${standalone ? "g" : "r"}${base64url(randomBytes(9))}`;
}

export function parseClusterStreamId(
  streamId: string,
): { owner: string; standalone: boolean } | undefined {
  const dot = streamId.indexOf(".");
  if (dot <= 0) return undefined;
  const owner = streamId.slice(0, dot);
  const kind = streamId[dot + 1];
  if (!INSTANCE_ID.test(owner) || (kind !== "g" && kind !== "r")) return undefined;
  return { owner, standalone: kind === "g" };
}

/**
 * Server-to-client request ids carry the sending instance (`<instance>.<n>`), so that an
 * answer POSTed to any instance finds the one waiting for it.
 */
export function clusterRequestId(instanceId: string, id: number | string): string {
  return `${instanceId}.${id}`;
}

export function parseClusterRequestId(id: unknown): { owner: string; local: number } | undefined {
  if (typeof id !== "string") return undefined;
  const dot = id.indexOf(".");
  if (dot <= 0) return undefined;
  const local = Number(id.slice(dot + 1));
  if (!Number.isSafeInteger(local)) return undefined;
  return { owner: id.slice(0, dot), local };
}
