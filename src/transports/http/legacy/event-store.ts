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
}

export interface InMemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped. Default 1,000. */
  maxEventsPerStream?: number;
  /** Streams kept per session; the least recently written is dropped. Default 100. */
  maxStreamsPerSession?: number;
}

/** The default store: bounded, in this process. */
export class InMemoryEventStore implements EventStore {
  /** Each session's streams, least recently written first (see RecentList: not Maps). */
  private readonly sessions = new Map<string, RecentList<StoredEvent[]>>();
  private readonly maxEvents: number;
  private readonly maxStreams: number;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEvents = Math.max(1, options.maxEventsPerStream ?? 1_000);
    this.maxStreams = Math.max(1, options.maxStreamsPerSession ?? 100);
  }

  append(sessionId: string, streamId: string, event: StoredEvent): void {
    let streams = this.sessions.get(sessionId);
    if (!streams) {
      streams = new RecentList();
      this.sessions.set(sessionId, streams);
    }
    let events = streams.get(streamId);
    if (events) {
      streams.touch(streamId);
      events.push(event);
      if (events.length > this.maxEvents) events.splice(0, events.length - this.maxEvents);
    } else {
      events = [event];
      streams.set(streamId, events);
    }
    while (streams.size > this.maxStreams) {
      const dropped = streams.delete(streams.oldest()!);
      // Emptied, as the list's entries are: an array in old space keeps young events alive.
      if (dropped) dropped.length = 0;
    }
  }

  eventsAfter(sessionId: string, streamId: string, afterSeq: number): StoredEvent[] | undefined {
    const events = this.sessions.get(sessionId)?.get(streamId);
    if (!events) return undefined;
    return events.filter((event) => event.seq > afterSeq);
  }

  forgetSession(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** Streams currently held for a session (for tests and metrics). */
  streamCount(sessionId: string): number {
    return this.sessions.get(sessionId)?.size ?? 0;
  }
}

/** Splits an event id into its stream and sequence number; undefined when it is not ours. */
export function parseEventId(eventId: string): { streamId: string; seq: number } | undefined {
  const colon = eventId.lastIndexOf(":");
  if (colon <= 0) return undefined;
  const seq = Number(eventId.slice(colon + 1));
  if (!Number.isSafeInteger(seq) || seq < 0) return undefined;
  return { streamId: eventId.slice(0, colon), seq };
}
