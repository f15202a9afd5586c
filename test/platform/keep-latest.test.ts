/**
 * keepLatest: each keeper holds exactly the last instance it was given, so a full GC collects
 * the earlier ones and not that one; keepers do not share a slot.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { keepLatest } from "../../src/platform/keep-latest.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Hands `count` new objects to `keep` in turn; returns weak references to them. */
function handOver(keep: (instance: object) => void, count: number): WeakRef<object>[] {
  const refs: WeakRef<object>[] = [];
  for (let i = 0; i < count; i++) {
    const instance = { i };
    keep(instance);
    refs.push(new WeakRef(instance));
  }
  return refs;
}

/** A full GC once the current job is over (a WeakRef's target lives at least that long). */
async function collect(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}

describe("keepLatest", () => {
  it("keeps the last instance reachable and lets the earlier ones go", async () => {
    const keep = keepLatest();
    const refs = handOver(keep, 3);
    await collect();
    assert.equal(refs[0]!.deref(), undefined);
    assert.equal(refs[1]!.deref(), undefined);
    assert.deepEqual(refs[2]!.deref(), { i: 2 });
  });

  it("gives each keeper a slot of its own", async () => {
    const first = keepLatest();
    const second = keepLatest();
    const [kept] = handOver(first, 1);
    const others = handOver(second, 2);
    await collect();
    assert.deepEqual(kept!.deref(), { i: 0 });
    assert.equal(others[0]!.deref(), undefined);
    assert.deepEqual(others[1]!.deref(), { i: 1 });
  });
});
