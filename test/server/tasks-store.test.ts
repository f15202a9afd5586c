import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InMemoryTaskStore } from "../../src/server/tasks/memory-store.js";
import type { TaskRecord } from "../../src/server/tasks/store.js";
import { TaskStoreFullError } from "../../src/server/tasks/store.js";

function record(taskId: string, createdAt: number, ttlMs: number | null): TaskRecord {
  return {
    taskId,
    owner: "",
    status: "completed",
    createdAt,
    lastUpdatedAt: createdAt,
    ttlMs,
    result: { content: [] },
    version: 1,
  };
}

describe("tasks: the in-memory TaskStore", () => {
  it("never expires a task before its TTL has fully elapsed (fake clock)", async () => {
    let now = 1_000_000;
    const store = new InMemoryTaskStore({ now: () => now, sweepIntervalMs: 0 });
    await store.create(record("t", now, 5000));
    now += 4999;
    store.sweep();
    assert.ok(await store.get("t"), "readable 1 ms before the TTL ends");
    now += 1;
    assert.equal(await store.get("t"), undefined, "gone once the TTL has elapsed");
  });

  it("keeps ttlMs: null tasks however far the clock moves", async () => {
    let now = 0;
    const store = new InMemoryTaskStore({ now: () => now, sweepIntervalMs: 0 });
    await store.create(record("forever", now, null));
    now += 10 * 365 * 24 * 3600 * 1000;
    store.sweep();
    assert.ok(await store.get("forever"));
  });

  it("compare-and-set: of two writers holding the same version exactly one wins", async () => {
    const store = new InMemoryTaskStore({ sweepIntervalMs: 0 });
    const base = { ...record("t", Date.now(), 60_000), status: "working" as const };
    await store.create(base);
    const outcomes = await Promise.all([
      store.compareAndSet({ ...base, status: "completed", version: 2 }, 1),
      store.compareAndSet({ ...base, status: "cancelled", version: 2 }, 1),
    ]);
    assert.deepEqual(outcomes, [true, false]);
    assert.equal((await store.get("t"))?.status, "completed");
  });

  it("holds at most maxTasks: 10,000 finished tasks are evicted after their TTL, memory flat", async () => {
    let now = 0;
    const store = new InMemoryTaskStore({ now: () => now, maxTasks: 10_000, sweepIntervalMs: 0 });
    for (let i = 0; i < 10_000; i++) await store.create(record(`a${i}`, now, 1000));
    // Full, and every task is within its TTL: a new one is refused, none is dropped early.
    await assert.rejects(store.create(record("early", now, 1000)), TaskStoreFullError);
    assert.equal(store.size, 10_000);
    assert.ok(await store.get("a0"));
    now += 1000;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 10_000; i++) await store.create(record(`b${round}-${i}`, now, 1000));
      assert.equal(store.size, 10_000, "the expired generation made room; the size stays flat");
      now += 1000;
    }
  });
});
