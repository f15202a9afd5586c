/**
 * One message, one stream (2025-11-25 transports: the server "MUST NOT broadcast the same
 * message across multiple streams"): while the standalone GET stream moves from a to b (a
 * resume on b), a keeps writing what it hears to its old stream until it hears of the move,
 * and b passes that on before its own. Updates announced meanwhile are heard by both; each
 * must reach the client once. a hears of the move late here (its bus delays "takeover"), so
 * the window is wide, and updates keep coming across it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  adjusted,
  inMemoryState,
  redisState,
  type SharedState,
  startCluster,
  unreliable,
} from "./legacy-cluster-helpers.js";
import { call, RawSession, SseEvents } from "./legacy-helpers.js";

const TAKEOVER_DELAY_MS = 400;
const UPDATES = 24;

function lateTakeoverOnA(state: SharedState): SharedState {
  return adjusted(state, (name, cluster) =>
    name === "a"
      ? {
          ...cluster,
          bus: unreliable(
            cluster.bus,
            () => false,
            (message) => (message.kind === "takeover" ? TAKEOVER_DELAY_MS : 0),
          ),
        }
      : cluster,
  );
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const kind of ["in memory", "on Redis"] as const) {
  describe(`the standalone stream moving between instances (shared state ${kind})`, {
    timeout: 60_000,
  }, () => {
    it("updates announced while a has not heard of the move reach the client exactly once", async () => {
      const base = kind === "in memory" ? inMemoryState() : await redisState("takeover.test");
      const cluster = await startCluster(["a", "b", "c"], {}, lateTakeoverOnA(base));
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        const uris = Array.from({ length: UPDATES }, (_, index) => `mem://n/${index}`);
        for (const [index, uri] of [...uris, "mem://n/first", "mem://n/last"].entries()) {
          const subscribe = { jsonrpc: "2.0", id: index + 1, method: "resources/subscribe" };
          const answer = await raw.post({ ...subscribe, params: { uri } });
          assert.equal(answer.status, 200);
          await answer.body?.cancel();
        }
        const first = new SseEvents(await raw.get());
        await first.next(); // priming
        const publisher = cluster.instance("c").server;
        publisher.resourceUpdated("mem://n/first");
        const cursor = await first.next();
        assert.equal(cursor?.message.params.uri, "mem://n/first");
        await first.cancel(); // the client lost the connection and resumes on b

        const moved = new SseEvents(await cluster.at(raw, "b").get(cursor!.id));
        // Updates across the move: before a hears of it, and after.
        for (const uri of uris) {
          publisher.resourceUpdated(uri);
          await pause((2 * TAKEOVER_DELAY_MS) / UPDATES);
        }
        // Everything written before it has arrived once this one has (one stream, in order).
        publisher.resourceUpdated("mem://n/last");
        const heard: string[] = [];
        const ids: string[] = [];
        for (;;) {
          const event = await moved.next();
          assert.ok(event, "the stream ended early");
          if (event.message === undefined) continue;
          const uri = event.message.params.uri as string;
          if (uri === "mem://n/last") break;
          heard.push(uri);
          ids.push(String(event.id));
        }
        await moved.cancel();
        const twice = heard.filter((uri, index) => heard.indexOf(uri) !== index);
        assert.deepEqual(twice, [], "an update reached the client twice");
        assert.equal(new Set(ids).size, ids.length);
        // Both instances wrote some of them: the move happened while they came.
        assert.ok(ids.some((id) => id.startsWith("a.")) && ids.some((id) => id.startsWith("b.")));
        assert.deepEqual([...heard].sort(), [...uris].sort(), "every update arrived");
        assert.equal((await cluster.at(raw, "b").post(call("where", {}, 99))).status, 200);
      } finally {
        await cluster.close();
      }
    });
  });
}
