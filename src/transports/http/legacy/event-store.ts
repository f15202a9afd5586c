/**
 * Where the SSE events of legacy Streamable HTTP sessions are kept so that a client can resume a
 * broken stream with `Last-Event-ID`. Events are stored per session and per stream: a cursor only
 * ever replays the rest of its own stream, never another stream's or another session's.
 */
import type { JsonRpcMessage } from "../../../jsonrpc/types.js";
import { RecentList } from "./recent-list.js";

export interface StoredEvent {
  /** The SSE event id (`<streamId>:<seq>`). */
  id: string;
  seq: number;
  message: JsonRpcMessage;
  /** SendOptions.origin of the message, kept in a cluster (see ResumableStream.openAfter). */
  origin?: string;
}

/** Synchronous or asynchronous, so that a shared store (Redis, a database) can implement it. */
export interface EventStore {
  /** Keeps one event of a session's stream. */
  append(sessionId: string, streamId: string, event: StoredEvent): void | Promise<void>;
  /**
   * The events of that session's stream with a sequence number above `afterSeq`, oldest first;
   * undefined when the store knows no such stream (never created, or evicted).
   */
  eventsAfter(
    sessionId: string,
    streamId: string,
    afterSeq: number,
  ): StoredEvent[] | undefined | Promise<StoredEvent[] | undefined>;
  /** Drops everything of a session (it was deleted or expired). */
  forgetSession(sessionId: string): void | Promise<void>;
  /**
   * The stream has ended and its client has taken every event, the end included: it sent its
   * next request on the same connection (see InMemoryEventStore for what the default store does
   * with that). Optional: a store without it keeps such streams like any other.
   */
  delivered?(sessionId: string, streamId: string): void;
}

export interface InMemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped. Default 1,000. */
  maxEventsPerStream?: number;
  /**
   * Streams kept per session; the least recently written is dropped. Default 100. An answer
   * its client provably took whole (see `delivered`) leaves sooner: a session keeps its newest.
   */
  maxStreamsPerSession?: number;
}

/** A session's streams, and the ids of those delivered whole, oldest first. */
interface SessionEvents {
  readonly streams: RecentList<StoredEvent[]>;
  readonly delivered: string[];
}

/**
 * Delivered streams kept per session: the newest, as a margin for a client that pipelines (it
 * may send its next request before it has read the answer). A delivered answer has nothing
 * left to resume; keeping each until 100 newer streams pushed it out (as before R6) made every
 * one outlive several scavenges, which is what grew a busy server's young generation
 * (bench/RESULTS.md, R6).
 */
const DELIVERED_KEPT = 1;

/** The default store: bounded, in this process. */
export class InMemoryEventStore implements EventStore {
  /** Each session's streams, least recently written first (see RecentList: not Maps). */
  private readonly sessions = new Map<string, SessionEvents>();
  private readonly maxEvents: number;
  private readonly maxStreams: number;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEvents = Math.max(1, options.maxEventsPerStream ?? 1_000);
    this.maxStreams = Math.max(1, options.maxStreamsPerSession ?? 100);
  }

  append(sessionId: string, streamId: string, event: StoredEvent): void {
    let session = this.sessions.get(sessionId);
    if (!session) {
      session = { streams: new RecentList(), delivered: [] };
      this.sessions.set(sessionId, session);
    }
    const { streams } = session;
    let events = streams.get(streamId);
    if (events) {
      streams.touch(streamId);
      events.push(event);
      if (events.length > this.maxEvents) events.splice(0, events.length - this.maxEvents);
    } else {
      events = [event];
      streams.set(streamId, events);
    }
    while (streams.size > this.maxStreams) drop(streams, streams.oldest()!);
  }

  /**
   * Keeps the stream as the session's newest delivered one; the one before it is dropped. A
   * stream still running, or whose client may not have it all (its connection closed), stays
   * under maxStreamsPerSession like before.
   */
  delivered(sessionId: string, streamId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session?.streams.get(streamId)) return;
    session.delivered.push(streamId);
    while (session.delivered.length > DELIVERED_KEPT)
      drop(session.streams, session.delivered.shift()!);
  }

  eventsAfter(sessionId: string, streamId: string, afterSeq: number): StoredEvent[] | undefined {
    const events = this.sessions.get(sessionId)?.streams.get(streamId);
    if (!events) return undefined;
    return events.filter((event) => event.seq > afterSeq);
  }

  forgetSession(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** Streams currently held for a session (for tests and metrics). */
  streamCount(sessionId: string): number {
    return this.sessions.get(sessionId)?.streams.size ?? 0;
  }
}

function drop(streams: RecentList<StoredEvent[]>, streamId: string): void {
  const dropped = streams.delete(streamId);
  // Emptied, as the list's entries are: an array in old space keeps young events alive.
  if (dropped) dropped.length = 0;
}

/** Splits an event id into its stream and sequence number; undefined when it is not ours. */
export function parseEventId(eventId: string): { streamId: string; seq: number } | undefined {
  const colon = eventId.lastIndexOf(":");
  if (colon <= 0) return undefined;
  const seq = Number(eventId.slice(colon + 1));
  if (!Number.isSafeInteger(seq) || seq < 0) return undefined;
  return { streamId: eventId.slice(0, colon), seq };
}
