/**
 * The Redis stores behind a legacy cluster, on a real Redis under a test prefix: session
 * records with compare-and-set and "only while it exists" writes; event streams whose appends
 * conflict on a taken sequence number or after the end, tails (several at once, on one blocking
 * reader) that replay, follow and stop at the end; and nothing left behind.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RedisCommands, RedisEventStore, RedisSessionRecords } from "../../src/redis/index.js";
import { AppendConflict } from "../../src/transports/http/legacy/cluster.js";
import type { StoredEvent } from "../../src/transports/http/legacy/event-store.js";
import { sharedRedis } from "../helpers/redis.js";

const STATE = {
  protocolVersion: "2025-11-25",
  clientCapabilities: {},
  initialized: true,
  subscriptions: [],
};

function event(streamId: string, seq: number): StoredEvent {
  return {
    id: `${streamId}:${seq}`,
    seq,
    message: { jsonrpc: "2.0", method: "notifications/progress", params: { progress: seq } },
  };
}

async function collect(events: AsyncIterable<StoredEvent>): Promise<number[]> {
  const seen: number[] = [];
  for await (const item of events) seen.push(item.seq);
  return seen;
}

describe("legacy cluster stores on Redis", () => {
  it("records: create, compare-and-set, touch and streams only while the record exists", async () => {
    const redis = await sharedRedis("legacy cluster records");
    try {
      const records = new RedisSessionRecords(new RedisCommands(redis.client, redis));
      await records.create({ id: "s1", principal: null, state: STATE, lastUsed: 1 }, 60_000);
      const loaded = await records.load("s1");
      assert.equal(loaded?.version, 1);
      const changed = { ...loaded!, state: { ...STATE, logLevel: "error" as const } };
      assert.equal(await records.replace(changed, 60_000), true);
      // The same base version again: someone else changed it first.
      assert.equal(await records.replace(changed, 60_000), false);
      assert.equal((await records.load("s1"))?.state.logLevel, "error");
      assert.equal((await records.load("s1"))?.version, 2);

      await records.touch("s1", 5, 60_000);
      assert.equal((await records.load("s1"))?.lastUsed, 5);
      await records.setStream("s1", { id: "a.rX", requestId: "r-1" }, 60_000);
      assert.deepEqual(await records.stream("s1", "a.rX"), { id: "a.rX", requestId: "r-1" });

      await records.delete("s1");
      assert.equal(await records.load("s1"), undefined);
      // Neither a touch nor a stream brings a deleted session back.
      await records.touch("s1", 9, 60_000);
      await records.setStream("s1", { id: "a.rY", requestId: 2 }, 60_000);
      assert.equal(await records.load("s1"), undefined);
      assert.deepEqual(await redis.keys(), []);
    } finally {
      await redis.cleanup();
    }
  });

  it("events: appends conflict on a taken number and after the end; tails replay, follow, stop", async () => {
    const redis = await sharedRedis("legacy cluster events");
    const events = new RedisEventStore(new RedisCommands(redis.client, redis), { ttlMs: 60_000 });
    try {
      await events.append("s1", "a.r1", event("a.r1", 1));
      await events.append("s1", "a.r1", event("a.r1", 2));
      await assert.rejects(events.append("s1", "a.r1", event("a.r1", 2)), AppendConflict);
      assert.deepEqual(
        (await events.eventsAfter("s1", "a.r1", 1))?.map((item) => item.seq),
        [2],
      );
      assert.equal(await events.eventsAfter("s1", "a.rNone", 0), undefined);

      // Two tails on two streams at once, on the store's one blocking reader.
      const signal = new AbortController().signal;
      const first = collect(events.tail("s1", "a.r1", 0, signal));
      const second = collect(events.tail("s1", "a.r2", 0, signal));
      await events.append("s1", "a.r2", event("a.r2", 1));
      await events.append("s1", "a.r1", event("a.r1", 3));
      await events.endStream("s1", "a.r2");
      await events.endStream("s1", "a.r1");
      assert.deepEqual(await first, [1, 2, 3]);
      assert.deepEqual(await second, [1]);

      const last = await events.last("s1", "a.r1");
      assert.deepEqual([last.event?.seq, last.ended], [3, true]);
      await assert.rejects(events.append("s1", "a.r1", event("a.r1", 4)), AppendConflict);
      await events.endStream("s1", "a.r1"); // again: nothing changes

      await events.forgetSession("s1");
      assert.deepEqual(await redis.keys(), []);
    } finally {
      await events.close();
      await redis.cleanup();
    }
  });

  it("events: a session keeps at most maxStreamsPerSession streams, the oldest written go", async () => {
    const redis = await sharedRedis("legacy cluster stream cap");
    const commands = new RedisCommands(redis.client, redis);
    const events = new RedisEventStore(commands, { ttlMs: 60_000, maxStreamsPerSession: 3 });
    try {
      for (let n = 1; n <= 5; n++) await events.append("s3", `a.r${n}`, event(`a.r${n}`, 1));
      // Written again: a.r3 is now the newest, so a.r4 goes before it.
      await events.append("s3", "a.r3", event("a.r3", 2));
      await events.append("s3", "a.r6", event("a.r6", 1));
      await events.endStream("s3", "a.r7");
      for (const gone of ["a.r1", "a.r2", "a.r4"]) {
        assert.equal(await events.eventsAfter("s3", gone, 0), undefined, gone);
      }
      assert.deepEqual(
        (await events.eventsAfter("s3", "a.r3", 0))?.map((item) => item.seq),
        [1, 2],
      );
      assert.equal((await redis.keys()).filter((key) => key.includes(":s3:")).length, 3);
      // Another session's streams are not counted against this one.
      await events.append("s4", "a.r1", event("a.r1", 1));
      assert.equal((await events.eventsAfter("s4", "a.r1", 0))?.length, 1);
      await events.forgetSession("s3");
      await events.forgetSession("s4");
      assert.deepEqual(await redis.keys(), []);
    } finally {
      await events.close();
      await redis.cleanup();
    }
  });

  it("events and session records of one session share a namespace without clashing", async () => {
    const redis = await sharedRedis("legacy cluster keys");
    const commands = new RedisCommands(redis.client, redis);
    const records = new RedisSessionRecords(commands);
    const events = new RedisEventStore(commands, { ttlMs: 60_000 });
    try {
      await records.create({ id: "s5", principal: null, state: STATE, lastUsed: 1 }, 60_000);
      await records.setStream("s5", { id: "a.r1", requestId: 1 }, 60_000);
      await events.append("s5", "a.r1", event("a.r1", 1));
      await events.endStream("s5", "a.r1");
      assert.deepEqual(await records.stream("s5", "a.r1"), { id: "a.r1", requestId: 1 });
      assert.equal((await events.eventsAfter("s5", "a.r1", 0))?.length, 1);
      await events.forgetSession("s5");
      await records.delete("s5");
      assert.deepEqual(await redis.keys(), []);
    } finally {
      await events.close();
      await redis.cleanup();
    }
  });

  it("a tail stops when its signal aborts, with nothing appended", async () => {
    const redis = await sharedRedis("legacy cluster tail abort");
    const events = new RedisEventStore(new RedisCommands(redis.client, redis));
    try {
      const stop = new AbortController();
      const tail = collect(events.tail("s2", "a.g1", 0, stop.signal));
      stop.abort();
      assert.deepEqual(await tail, []);
    } finally {
      await events.close();
      await redis.cleanup();
    }
  });
});
