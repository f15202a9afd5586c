/**
 * A legacy cluster whose bus loses messages (pub/sub is at most once): what an instance must
 * still get right without them. A session deleted on a while b never hears of it answers 404 on
 * b too, within LegacyCluster.recordCheckMs, and a stream b holds open for it ends.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { waitFor } from "../../helpers/poll.js";
import {
  adjusted,
  inMemoryState,
  redisState,
  type SharedState,
  startCluster,
  unreliable,
} from "./legacy-cluster-helpers.js";
import { call, RawSession, SseEvents } from "./legacy-helpers.js";

const RECORD_CHECK_MS = 150;

/** b never hears that a session ended; every instance rereads records after RECORD_CHECK_MS. */
function deafToEnds(state: SharedState): SharedState {
  return adjusted(state, (name, cluster) => ({
    ...cluster,
    recordCheckMs: RECORD_CHECK_MS,
    bus:
      name === "b" ? unreliable(cluster.bus, (message) => message.kind === "ended") : cluster.bus,
  }));
}

for (const kind of ["in memory", "on Redis"] as const) {
  describe(`legacy cluster with a lossy bus (shared state ${kind})`, { timeout: 60_000 }, () => {
    const state = async () =>
      deafToEnds(kind === "in memory" ? inMemoryState() : await redisState("lost-bus.test"));

    it("DELETE on a, its announcement lost on b: b's copy answers 404 once it rereads the record", async () => {
      const cluster = await startCluster(["a", "b"], {}, await state());
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        const onB = cluster.at(raw, "b");
        assert.equal((await onB.post(call("where", {}, 1))).status, 200); // b holds a copy
        assert.equal((await raw.delete()).status, 204);
        let id = 2;
        const status = await waitFor("b to see the session gone", async () => {
          const answer = await onB.post(call("where", {}, id++));
          await answer.body?.cancel();
          return answer.status === 404 ? answer.status : undefined;
        });
        assert.equal(status, 404);
        assert.equal((await raw.post(call("where", {}, 100))).status, 404);
      } finally {
        await cluster.close();
      }
    });

    it("DELETE on a, its announcement lost on b: the GET stream b holds ends", async () => {
      // A short half-open time makes the sweeper run often (every halfOpenSessionMs / 2).
      const cluster = await startCluster(["a", "b"], { halfOpenSessionMs: 200 }, await state());
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        const listening = new SseEvents(await cluster.at(raw, "b").get());
        assert.equal((await listening.next())?.message, undefined); // priming
        assert.equal((await raw.delete()).status, 204);
        assert.deepEqual(await listening.rest(), []);
        assert.equal((await cluster.at(raw, "b").post(call("where", {}, 1))).status, 404);
      } finally {
        await cluster.close();
      }
    });
  });
}
