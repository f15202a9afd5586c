/**
 * RedisTaskStore on the shared Redis: create refuses a duplicate id, get reads back exactly
 * what was stored, compare-and-set wins only against the expected version (two racing writers:
 * one wins), the key's expiry is the task's TTL (none for ttlMs null), and a missing task is
 * undefined.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { RedisTaskStore } from "../../src/redis/index.js";
import {
  TaskQuotaError,
  type TaskRecord,
  TaskStoreFullError,
} from "../../src/server/tasks/store.js";
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

  it("quota per owner: concurrent creates never overshoot; another owner is served; expiry frees", async () => {
    const alice = { owner: "p:alice", max: 5 };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => store.create(record(`q-a${i}`, 60_000), alice)),
    );
    const made = outcomes.filter((outcome) => outcome.status === "fulfilled").length;
    assert.equal(made, 5, "exactly the quota, however the 20 creates interleave");
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") assert.ok(outcome.reason instanceof TaskQuotaError);
    }
    await store.create(record("q-b1", 60_000), { owner: "p:bob", max: 5 });
    // Created an hour later (by its clock): alice's tasks have expired and count no more.
    const later = { ...record("q-a-later", 60_000), createdAt: 1000 + 3_600_000 };
    await store.create(later, alice);
    const ownerKey = `${redis.prefix}tasks:owner:p:alice`;
    assert.equal(await redis.client.zCard(ownerKey), 1);
    const setTtl = (await redis.client.pTTL(ownerKey)) as number;
    assert.ok(setTtl > 0 && setTtl <= 61_000, `the owner's set expires after its tasks: ${setTtl}`);
  });

  it("the store's maximum caps all owners together, atomically", async () => {
    const capped = new RedisTaskStore(redis.client, { prefix: `${redis.prefix}cap:`, maxTasks: 4 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        capped.create(record(`c${i}`, null), { owner: `o${i % 3}`, max: 10 }),
      ),
    );
    const refused = outcomes.filter((outcome) => outcome.status === "rejected");
    assert.equal(refused.length, 8);
    const reason = (refused[0] as PromiseRejectedResult).reason;
    assert.ok(reason instanceof TaskStoreFullError && !(reason instanceof TaskQuotaError));
    assert.match(reason.message, /maximum of 4 tasks/);
    // ttlMs null tasks count until deleted: their sets never expire.
    assert.equal(await redis.client.pTTL(`${redis.prefix}cap:tasks:all`), -1);
  });

  it("lists the ids counted against one quota owner (legacy tasks/list), no one else's", async () => {
    const quota = (owner: string) => ({ owner, max: 10 });
    await store.create(record("listed-a", 60_000), quota("s:lister"));
    await store.create(record("listed-b", 60_000), quota("s:lister"));
    await store.create(record("listed-other", 60_000), quota("s:other"));
    assert.deepEqual((await store.listIds("s:lister")).sort(), ["listed-a", "listed-b"]);
    assert.deepEqual(await store.listIds("s:nobody"), []);
  });

  it("says it is shared across instances", () => {
    assert.equal(store.sharedAcrossInstances, true);
  });
});
