/**
 * Durable records of legacy Streamable HTTP sessions: what another process needs to carry a
 * session on after a restart without a new `initialize` (the negotiated state, the streams that
 * were still open and the request each one answers, the last use for idle expiry). Together with
 * a durable EventStore this lets a restarted server serve `Last-Event-ID` resumptions.
 *
 * A record is written when a session is initialized, when its state changes (logging level,
 * subscriptions), when a stream opens, when the session is suspended, and now and then when it
 * is used; never per event: the newest sequence number of a stream is read back from the event
 * store, and so is whether a listed stream has its reply already.
 */
import type { JsonRpcId } from "../../../jsonrpc/types.js";
import type { LegacySnapshot } from "../../../server/connection.js";

export interface StreamRecord {
  /** The stream id (the part before the colon in its event ids). */
  id: string;
  /** The request this stream answers; absent for the standalone GET stream. */
  requestId?: JsonRpcId;
}

export interface SessionRecord {
  id: string;
  /** The principal that opened the session, as JSON (null when there was none). */
  principal: string | null;
  /** What `initialize` negotiated, and what the client changed since. */
  state: LegacySnapshot;
  /**
   * The streams open when the record was written: still being written, or waiting for their
   * client to resume (some may have finished since; their reply is in the event store).
   */
  streams: StreamRecord[];
  /** Last use (ms since the epoch), for idle expiry in whichever process holds it next. */
  lastUsed: number;
}

/** Synchronous or asynchronous, so that a shared store (Redis, a database) can implement it. */
export interface SessionRecordStore {
  load(id: string): SessionRecord | undefined | Promise<SessionRecord | undefined>;
  /** Replaces the record with this id. */
  save(record: SessionRecord): void | Promise<void>;
  delete(id: string): void | Promise<void>;
  /**
   * Removes the records last used before `usedBefore` and returns their ids (their events are
   * forgotten next). Optional: stores that expire entries themselves (Redis TTLs) leave it out.
   */
  removeIdle?(usedBefore: number): string[] | Promise<string[]>;
}

/** The default: records in this process, which die with it (and copies, never shared objects). */
export class InMemorySessionRecordStore implements SessionRecordStore {
  private readonly records = new Map<string, SessionRecord>();

  load(id: string): SessionRecord | undefined {
    const record = this.records.get(id);
    return record && structuredClone(record);
  }

  save(record: SessionRecord): void {
    this.records.set(record.id, structuredClone(record));
  }

  delete(id: string): void {
    this.records.delete(id);
  }

  removeIdle(usedBefore: number): string[] {
    const removed: string[] = [];
    for (const [id, record] of this.records) {
      if (record.lastUsed < usedBefore) {
        this.records.delete(id);
        removed.push(id);
      }
    }
    return removed;
  }

  get size(): number {
    return this.records.size;
  }
}

/** The principal as a record keeps it; undefined when it cannot be written as JSON. */
export function principalKey(principal: unknown): string | null | undefined {
  try {
    return JSON.stringify(principal) ?? null;
  } catch {
    return undefined;
  }
}

/**
 * Writes one session's records in order. A write starts at once when none is pending (so a
 * synchronous store has it on disk before the caller goes on, e.g. before a stream's first event
 * id reaches the client); otherwise it waits for the one before. Failures are reported, not thrown.
 */
export class RecordWriter {
  private readonly store: SessionRecordStore;
  private readonly report: (error: Error) => void;
  private pending = 0;
  private last: Promise<void> = Promise.resolve();
  private frozen = false;

  constructor(store: SessionRecordStore, report: (error: Error) => void) {
    this.store = store;
    this.report = report;
  }

  save(record: SessionRecord): void {
    if (this.frozen) return;
    this.run(() => this.store.save(record));
  }

  /** No more saves: the session is suspended (its record stays as it is) or ending. */
  freeze(): void {
    this.frozen = true;
  }

  /** Deletes the record once earlier saves have landed, so none of them brings it back. */
  delete(id: string): Promise<void> {
    this.frozen = true;
    this.run(() => this.store.delete(id));
    return this.last;
  }

  /** Resolves when every write so far has finished. */
  settled(): Promise<void> {
    return this.last;
  }

  private run(write: () => void | Promise<void>): void {
    if (this.pending === 0) {
      let result: void | Promise<void>;
      try {
        result = write();
      } catch (error) {
        this.report(asError(error));
        return;
      }
      if (result && typeof result.then === "function") this.track(Promise.resolve(result));
      return;
    }
    this.track(this.last.then(write));
  }

  private track(write: Promise<void>): void {
    this.pending += 1;
    this.last = write
      .catch((error: unknown) => this.report(asError(error)))
      .finally(() => {
        this.pending -= 1;
      });
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
