/**
 * Legacy SSE events in Redis Streams: one stream per logical SSE stream, entry ids `<seq>-0`
 * (XADD with an explicit id rejects one not above the newest: a free compare-and-set), bounded
 * by MAXLEN and expiring with a TTL. The end of a stream is an entry with the highest id a
 * sequence number can have, so nothing can be appended after it. Tails wait on this instance's
 * one blocking reader (tail-reader.ts).
 */
import type { JsonRpcMessage } from "../jsonrpc/types.js";
import { AppendConflict, type ClusterEventStore } from "../transports/http/legacy/cluster.js";
import type { StoredEvent } from "../transports/http/legacy/event-store.js";
import { type RedisCommands, RedisScript } from "./commands.js";
import { TailReader } from "./tail-reader.js";

/** The end marker's entry id (no sequence number reaches it). */
const END_ID = `${Number.MAX_SAFE_INTEGER}-0`;
const PAGE = 200;

/**
 * Records the stream as its session's most recently written (KEYS[2]: a sorted set scored by
 * write order, no clocks) and drops the oldest beyond the cap with their keys, as the other
 * stores do: one session cannot pile up streams each kept for the TTL. Both scripts below call
 * it after their write.
 */
const TRACK = `
local function track(id, cap, ttl, prefix)
  local newest = redis.call('ZREVRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  redis.call('ZADD', KEYS[2], (tonumber(newest[2]) or 0) + 1, id)
  local extra = redis.call('ZCARD', KEYS[2]) - tonumber(cap)
  if extra > 0 then
    local popped = redis.call('ZPOPMIN', KEYS[2], extra)
    for i = 1, #popped, 2 do redis.call('DEL', prefix .. popped[i]) end
  end
  redis.call('PEXPIRE', KEYS[2], ttl)
end
`;

/**
 * ARGV: entry id, message, MAXLEN, TTL, stream id, streams per session, stream key prefix,
 * origin ('' for none).
 */
const APPEND = new RedisScript(`${TRACK}
local added
if ARGV[8] == '' then
  added = redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], ARGV[1], 'm', ARGV[2])
else
  added = redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], ARGV[1], 'm', ARGV[2], 'o', ARGV[8])
end
if type(added) == 'table' and added.err then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
track(ARGV[5], ARGV[6], ARGV[4], ARGV[7])
return 1`);

/** ARGV: the end's entry id, TTL, stream id, streams per session, stream key prefix. */
const END = new RedisScript(`${TRACK}
local added = redis.pcall('XADD', KEYS[1], ARGV[1], 'end', '1')
if type(added) == 'table' and added.err then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
track(ARGV[3], ARGV[4], ARGV[2], ARGV[5])
return 1`);

export interface RedisEventStoreOptions {
  /** Events kept per stream (approximately: MAXLEN ~). Default 1,000. */
  maxEventsPerStream?: number;
  /** How long a stream is kept after its last event (ms). Default 1 hour. */
  ttlMs?: number;
  /**
   * Streams kept per session; the least recently written is dropped (with its events).
   * Default 100, as in the in-memory and file stores.
   */
  maxStreamsPerSession?: number;
}

type Entry = { seq: number; message?: JsonRpcMessage; origin?: string; end: boolean };

export class RedisEventStore implements ClusterEventStore {
  private readonly commands: RedisCommands;
  private readonly reader: TailReader;
  private readonly maxEvents: number;
  private readonly ttlMs: number;
  private readonly maxStreams: number;

  constructor(commands: RedisCommands, options: RedisEventStoreOptions = {}) {
    this.commands = commands;
    this.reader = new TailReader(commands);
    this.maxEvents = Math.max(1, options.maxEventsPerStream ?? 1_000);
    this.ttlMs = Math.max(1_000, options.ttlMs ?? 3_600_000);
    this.maxStreams = Math.max(1, options.maxStreamsPerSession ?? 100);
  }

  async append(sessionId: string, streamId: string, event: StoredEvent): Promise<void> {
    const added = await this.commands.eval(APPEND, this.keys(sessionId, streamId), [
      `${event.seq}-0`,
      JSON.stringify(event.message),
      String(this.maxEvents),
      String(this.ttlMs),
      streamId,
      String(this.maxStreams),
      this.streamKeyPrefix(sessionId),
      event.origin ?? "",
    ]);
    if (Number(added) !== 1) throw new AppendConflict(streamId, event.seq);
  }

  async endStream(sessionId: string, streamId: string): Promise<void> {
    await this.commands.eval(END, this.keys(sessionId, streamId), [
      END_ID,
      String(this.ttlMs),
      streamId,
      String(this.maxStreams),
      this.streamKeyPrefix(sessionId),
    ]);
  }

  async last(
    sessionId: string,
    streamId: string,
  ): Promise<{ event?: StoredEvent; ended: boolean }> {
    const [key] = this.keys(sessionId, streamId);
    const entries = parseEntries(
      await this.commands.send(["XREVRANGE", key, "+", "-", "COUNT", "2"]),
    );
    const ended = entries[0]?.end ?? false;
    const newest = entries.find((entry) => !entry.end);
    return { event: newest && toEvent(streamId, newest), ended };
  }

  async eventsAfter(
    sessionId: string,
    streamId: string,
    afterSeq: number,
  ): Promise<StoredEvent[] | undefined> {
    const [key] = this.keys(sessionId, streamId);
    if (Number(await this.commands.send(["EXISTS", key])) === 0) return undefined;
    const events: StoredEvent[] = [];
    let cursor = afterSeq;
    for (;;) {
      const page = await this.page(key, cursor);
      for (const entry of page) {
        if (entry.end) return events;
        events.push(toEvent(streamId, entry));
        cursor = entry.seq;
      }
      if (page.length < PAGE) return events;
    }
  }

  async forgetSession(sessionId: string): Promise<void> {
    const index = this.indexKey(sessionId);
    const streams = await this.commands.send(["ZRANGE", index, "0", "-1"]);
    const keys = Array.isArray(streams)
      ? streams.map((id) => this.keys(sessionId, String(id))[0])
      : [];
    await this.commands.send(["DEL", index, ...keys]);
  }

  async *tail(
    sessionId: string,
    streamId: string,
    afterSeq: number,
    signal: AbortSignal,
  ): AsyncIterable<StoredEvent> {
    const [key] = this.keys(sessionId, streamId);
    let cursor = afterSeq;
    while (!signal.aborted) {
      const page = await this.page(key, cursor);
      for (const entry of page) {
        if (entry.end) return;
        cursor = entry.seq;
        yield toEvent(streamId, entry);
      }
      if (page.length === 0) await this.reader.wait(key, `${cursor}-0`, signal);
    }
  }

  /** Closes the blocking reader's connection (the client itself is the caller's). */
  close(): Promise<void> {
    return this.reader.close();
  }

  private async page(key: string, afterSeq: number): Promise<Entry[]> {
    const reply = await this.commands.send([
      "XRANGE",
      key,
      `(${afterSeq}-0`,
      "+",
      "COUNT",
      String(PAGE),
    ]);
    return parseEntries(reply);
  }

  /** The stream's key, and the session's index of its streams (the cap, forgetSession). */
  private keys(sessionId: string, streamId: string): [string, string] {
    return [`${this.streamKeyPrefix(sessionId)}${streamId}`, this.indexKey(sessionId)];
  }

  private streamKeyPrefix(sessionId: string): string {
    return this.commands.key(`legacy:events:${sessionId}:`);
  }

  /**
   * A sorted set (by write order) since the cap, so a new name (an old set under the old name
   * expires with its TTL). Not `legacy:streams:`: the session records' hash has that one.
   */
  private indexKey(sessionId: string): string {
    return this.commands.key(`legacy:event-index:${sessionId}`);
  }
}

function toEvent(streamId: string, entry: Entry): StoredEvent {
  const event = { id: `${streamId}:${entry.seq}`, seq: entry.seq, message: entry.message! };
  return entry.origin === undefined ? event : { ...event, origin: entry.origin };
}

/** XRANGE / XREVRANGE entries: [id, [field, value, …]] (RESP2) or the same under RESP3. */
function parseEntries(reply: unknown): Entry[] {
  if (!Array.isArray(reply)) return [];
  const entries: Entry[] = [];
  for (const item of reply) {
    if (!Array.isArray(item)) continue;
    const [id, fields] = item as [unknown, unknown];
    const values = fieldMap(fields);
    const seq = Number(String(id).split("-")[0]);
    if (String(id) === END_ID || values.has("end")) {
      entries.push({ seq, end: true });
      continue;
    }
    const data = values.get("m");
    if (data === undefined) continue;
    const message = JSON.parse(data) as JsonRpcMessage;
    const origin = values.get("o");
    entries.push(
      origin === undefined ? { seq, message, end: false } : { seq, message, origin, end: false },
    );
  }
  return entries;
}

function fieldMap(fields: unknown): Map<string, string> {
  const map = new Map<string, string>();
  if (Array.isArray(fields)) {
    for (let i = 0; i + 1 < fields.length; i += 2)
      map.set(String(fields[i]), String(fields[i + 1]));
  } else if (fields instanceof Map) {
    for (const [name, value] of fields) map.set(String(name), String(value));
  } else if (fields && typeof fields === "object") {
    for (const [name, value] of Object.entries(fields)) map.set(name, String(value));
  }
  return map;
}
