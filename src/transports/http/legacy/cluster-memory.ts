/**
 * A cluster's shared state in this process: several legacy handlers (each its own "instance")
 * share one InMemoryClusterBackend, which is what tests need to run a cluster without Redis and
 * what a single process gets at no cost. Everything is copied in and out, as over a network.
 */

import { macrotask } from "../../../platform/scheduling.js";
import {
  AppendConflict,
  type ClusterBus,
  type ClusterEventStore,
  type ClusterMessage,
  type ClusterRecordStore,
  type ClusterSessionRecord,
  type InstanceLeases,
  type LegacyCluster,
  newInstanceId,
} from "./cluster.js";
import type { StoredEvent } from "./event-store.js";
import type { StreamRecord } from "./session-records.js";

interface HeldRecord {
  record: ClusterSessionRecord;
  expiresAt: number;
  streams: Map<string, StreamRecord>;
}

interface HeldStream {
  events: StoredEvent[];
  ended: boolean;
}

export interface InMemoryClusterOptions {
  /** Events kept per stream; older ones are dropped. Default 1,000. */
  maxEventsPerStream?: number;
}

export class InMemoryClusterBackend {
  private readonly records = new Map<string, HeldRecord>();
  private readonly streams = new Map<string, Map<string, HeldStream>>();
  /** Tails waiting for a stream to change, per session and stream. */
  private readonly waiters = new Map<string, Map<string, Set<() => void>>>();
  private readonly listeners = new Set<(message: ClusterMessage) => void>();
  private readonly leaseEnds = new Map<string, number>();
  /** Instances cut off as if their process had been killed. */
  private readonly severed = new Set<string>();
  private readonly maxEvents: number;
  private swept = 0;

  constructor(options: InMemoryClusterOptions = {}) {
    this.maxEvents = Math.max(1, options.maxEventsPerStream ?? 1_000);
  }

  /** The shared state as one instance sees it (pass it as LegacyOptions.cluster). */
  instance(
    options: { instanceId?: string; leaseMs?: number; recordCheckMs?: number } = {},
  ): LegacyCluster {
    const instanceId = options.instanceId ?? newInstanceId();
    const check = () => {
      if (this.severed.has(instanceId)) throw new Error(`instance ${instanceId} is cut off`);
    };
    return {
      instanceId,
      leaseMs: options.leaseMs,
      recordCheckMs: options.recordCheckMs,
      records: this.recordStore(check),
      events: this.eventStore(check),
      bus: this.bus(instanceId, check),
      leases: this.leases(check),
    };
  }

  /**
   * What a SIGKILL does to an instance, as the others see it: its lease is gone at once, it
   * hears nothing more and nothing it writes lands.
   */
  sever(instanceId: string): void {
    this.severed.add(instanceId);
    this.leaseEnds.delete(instanceId);
  }

  /** Sessions with a live record (for tests). */
  get sessionCount(): number {
    this.swept = 0;
    this.expire();
    return this.records.size;
  }

  /** Streams kept for a session (for tests). */
  streamCount(sessionId: string): number {
    return this.streams.get(sessionId)?.size ?? 0;
  }

  /** Drops expired records; a full scan at most once a second (not per event). */
  private expire(): void {
    const now = Date.now();
    if (now - this.swept < 1_000) return;
    this.swept = now;
    for (const [id, held] of this.records) {
      if (held.expiresAt > now) continue;
      this.records.delete(id);
      this.forget(id);
    }
  }

  private live(id: string): HeldRecord | undefined {
    this.expire();
    const held = this.records.get(id);
    if (!held || held.expiresAt > Date.now()) return held;
    this.records.delete(id);
    this.forget(id);
    return undefined;
  }

  private recordStore(check: () => void): ClusterRecordStore {
    return {
      create: async (record, ttlMs) => {
        check();
        this.records.set(record.id, {
          record: structuredClone({ ...record, version: 1 }),
          expiresAt: Date.now() + ttlMs,
          streams: new Map(),
        });
      },
      load: async (id) => {
        check();
        const held = this.live(id);
        return held && structuredClone(held.record);
      },
      replace: async (record, ttlMs) => {
        check();
        const held = this.live(record.id);
        if (!held || held.record.version !== record.version) return false;
        held.record = structuredClone({ ...record, version: record.version + 1 });
        held.expiresAt = Date.now() + ttlMs;
        return true;
      },
      touch: async (id, lastUsed, ttlMs) => {
        check();
        const held = this.live(id);
        if (!held) return;
        held.record.lastUsed = Math.max(held.record.lastUsed, lastUsed);
        held.expiresAt = Date.now() + ttlMs;
      },
      delete: async (id) => {
        check();
        this.records.delete(id);
      },
      setStream: async (sessionId, stream, ttlMs) => {
        check();
        const held = this.live(sessionId);
        if (!held) return;
        held.streams.set(stream.id, structuredClone(stream));
        held.expiresAt = Math.max(held.expiresAt, Date.now() + ttlMs);
      },
      stream: async (sessionId, streamId) => {
        check();
        const stream = this.live(sessionId)?.streams.get(streamId);
        return stream && structuredClone(stream);
      },
    };
  }

  private eventStore(check: () => void): ClusterEventStore {
    const backend = this;
    return {
      append: async (sessionId, streamId, event) => {
        check();
        // A session that has ended keeps nothing (late writes of its streams included).
        const stream = this.live(sessionId) && this.held(sessionId, streamId);
        if (!stream) return;
        const newest = stream.events.at(-1)?.seq ?? 0;
        if (stream.ended || event.seq <= newest) throw new AppendConflict(streamId, event.seq);
        stream.events.push(structuredClone(event));
        if (stream.events.length > this.maxEvents) stream.events.shift();
        this.wake(sessionId, streamId);
      },
      endStream: async (sessionId, streamId) => {
        check();
        const stream = this.live(sessionId) && this.held(sessionId, streamId);
        if (!stream) return;
        stream.ended = true;
        this.wake(sessionId, streamId);
      },
      last: async (sessionId, streamId) => {
        check();
        const stream = this.streams.get(sessionId)?.get(streamId);
        const event = stream?.events.at(-1);
        return { event: event && structuredClone(event), ended: stream?.ended ?? false };
      },
      eventsAfter: async (sessionId, streamId, afterSeq) => {
        check();
        const stream = this.streams.get(sessionId)?.get(streamId);
        return stream?.events
          .filter((event) => event.seq > afterSeq)
          .map((e) => structuredClone(e));
      },
      forgetSession: async (sessionId) => {
        check();
        this.forget(sessionId);
      },
      async *tail(sessionId, streamId, afterSeq, signal) {
        check();
        let cursor = afterSeq;
        while (!signal.aborted) {
          const changed = backend.changed(sessionId, streamId, signal);
          const stream = backend.streams.get(sessionId)?.get(streamId);
          const fresh = stream?.events.filter((event) => event.seq > cursor) ?? [];
          for (const event of fresh) {
            cursor = event.seq;
            yield structuredClone(event);
          }
          if (stream?.ended) return;
          if ((await changed) === "gone") return;
        }
      },
    };
  }

  private bus(instanceId: string, check: () => void): ClusterBus {
    return {
      publish: async (message) => {
        check();
        const copy = structuredClone(message);
        // Delivered on a later turn, as from a socket.
        macrotask(() => {
          for (const listener of [...this.listeners]) listener(structuredClone(copy));
        });
      },
      subscribe: async (listener) => {
        check();
        const entry = (message: ClusterMessage) => {
          if (!this.severed.has(instanceId)) listener(message);
        };
        this.listeners.add(entry);
        return async () => {
          this.listeners.delete(entry);
        };
      },
    };
  }

  private leases(check: () => void): InstanceLeases {
    return {
      renew: async (instanceId, ttlMs) => {
        check();
        this.leaseEnds.set(instanceId, Date.now() + ttlMs);
      },
      alive: async (instanceId) => {
        check();
        return (this.leaseEnds.get(instanceId) ?? 0) > Date.now();
      },
      release: async (instanceId) => {
        check();
        this.leaseEnds.delete(instanceId);
      },
    };
  }

  /** A stream's events, made on first use. */
  private held(sessionId: string, streamId: string): HeldStream {
    let streams = this.streams.get(sessionId);
    if (!streams) {
      streams = new Map();
      this.streams.set(sessionId, streams);
    }
    let stream = streams.get(streamId);
    if (!stream) {
      stream = { events: [], ended: false };
      streams.set(streamId, stream);
    }
    return stream;
  }

  /** Resolves at the next append or end of that stream ("changed"), or when it is forgotten. */
  private changed(sessionId: string, streamId: string, signal: AbortSignal): Promise<string> {
    return new Promise((resolve) => {
      let streams = this.waiters.get(sessionId);
      if (!streams) {
        streams = new Map();
        this.waiters.set(sessionId, streams);
      }
      let waiting = streams.get(streamId);
      if (!waiting) {
        waiting = new Set();
        streams.set(streamId, waiting);
      }
      const set = waiting;
      const done = (outcome: string) => {
        set.delete(wake);
        signal.removeEventListener("abort", aborted);
        resolve(outcome);
      };
      const wake = () => done(this.streams.get(sessionId)?.has(streamId) ? "changed" : "gone");
      const aborted = () => done("gone");
      set.add(wake);
      signal.addEventListener("abort", aborted, { once: true });
    });
  }

  private wake(sessionId: string, streamId: string): void {
    const waiting = this.waiters.get(sessionId)?.get(streamId);
    if (!waiting) return;
    this.waiters.get(sessionId)?.delete(streamId);
    if (this.waiters.get(sessionId)?.size === 0) this.waiters.delete(sessionId);
    for (const wake of [...waiting]) wake();
  }

  private forget(sessionId: string): void {
    this.streams.delete(sessionId);
    const streams = this.waiters.get(sessionId);
    this.waiters.delete(sessionId);
    for (const waiting of streams?.values() ?? []) for (const wake of [...waiting]) wake();
  }
}
