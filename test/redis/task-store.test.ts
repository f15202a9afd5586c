/**
 * RedisTaskStore on the shared Redis: create refuses a duplicate id, get reads back exactly
 * what was stored, compare-and-set wins only against the expected version (two racing writers:
 * one wins), the key's expiry is the task's TTL (none for ttlMs null), and a missing task is
 * undefined.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { RedisTaskStore } from "../../src/redis/index.js";
import type { TaskRecord } from "../../src/server/tasks/store.js";
import { type SharedRedis, sharedRedis } from "../helpers/redis.js";

function record(taskId: string, ttlMs: number | null, version = 1): TaskRecord {
  return {
    taskId,
    owner: "anonymous",
    status: "working",
    createdAt: 1000,
    lastUpdatedAt: 1000,
    ttlMs,
    pollIntervalMs: 200,
    version,
  };
}

describe("RedisTaskStore", () => {
  let redis: SharedRedis;
  let store: RedisTaskStore;

  before(async () => {
    redis = await sharedRedis("RedisTaskStore");
    store = new RedisTaskStore(redis.client, { prefix: redis.prefix });
  });
  after(() => redis?.cleanup());

  it("stores, reads back and refuses a second task with the same id", async () => {
    const task = record("t-1", 60_000);
    await store.create(task);
    assert.deepEqual(await store.get("t-1"), task);
    await assert.rejects(store.create(task), /already exists/);
    assert.equal(await store.get("t-unknown"), undefined);
  });

  it("compare-and-set changes the task only from the expected version", async () => {
    await store.create(record("t-2", 60_000));
    const completed = { ...record("t-2", 60_000, 2), status: "completed" as const };
    const failed = { ...record("t-2", 60_000, 2), status: "failed" as const };
    // Two writers read version 1 and race: exactly one of them wins.
    const outcomes = await Promise.all([
      store.compareAndSet(completed, 1),
      store.compareAndSet(failed, 1),
    ]);
    assert.deepEqual(outcomes.sort(), [false, true]);
    const stored = await store.get("t-2");
    assert.equal(stored?.version, 2);
    assert.equal(await store.compareAndSet({ ...completed, version: 3 }, 1), false);
    assert.equal(await store.compareAndSet(record("t-missing", null, 2), 1), false);
  });

  it("expires a task's key with its TTL, and keeps a task with ttlMs null", async () => {
    await store.create(record("t-3", 30_000));
    await store.create(record("t-4", null));
    const limited = (await redis.client.pTTL(`${redis.prefix}task:t-3`)) as number;
    assert.ok(limited > 0 && limited <= 30_000, `PTTL ${limited}`);
    // A change keeps the expiry it had.
    assert.equal(await store.compareAndSet(record("t-3", 30_000, 2), 1), true);
    assert.ok(((await redis.client.pTTL(`${redis.prefix}task:t-3`)) as number) > 0);
    assert.equal(await redis.client.pTTL(`${redis.prefix}task:t-4`), -1);
  });

  it("says it is shared across instances", () => {
    assert.equal(store.sharedAcrossInstances, true);
  });
});
