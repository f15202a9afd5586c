/**
 * One legacy session served by several instances at once (real HTTP servers on 127.0.0.1 in
 * one process, sharing an in-memory cluster backend): any request on any instance, answers and
 * cancellations reaching the instance that waits for them, state changes holding everywhere,
 * streams resumed on another instance than the one writing them, DELETE and idle expiry
 * cluster-wide, a dead instance's streams ending with an error reply.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { LegacyOptions } from "../../../src/transports/http/legacy/legacy-handler.js";
import { RESTARTED_BEFORE_REPLY } from "../../../src/transports/http/legacy/legacy-session.js";
import { waitFor } from "../../helpers/poll.js";
import type { Wire } from "./http-helpers.js";
import {
  inMemoryState,
  redisState,
  startCluster as startSharedCluster,
} from "./legacy-cluster-helpers.js";
import { call, RawSession, SseEvents } from "./legacy-helpers.js";

function text(body: Wire): string {
  return body.result.content[0].text;
}

async function callJson(raw: RawSession, name: string, id: number): Promise<Wire> {
  const response = await raw.post(call(name, {}, id));
  assert.equal(response.status, 200);
  return response.json();
}

for (const kind of ["in memory", "on Redis"] as const) {
  describe(`legacy sessions across cluster instances (shared state ${kind})`, {
    timeout: 60_000,
  }, () => {
    const startCluster = async (names: string[], extra: LegacyOptions = {}, leaseMs?: number) =>
      startSharedCluster(
        names,
        extra,
        kind === "in memory"
          ? inMemoryState(leaseMs)
          : await redisState("legacy-cluster.test", leaseMs),
      );

    it("initialize on a, requests on b and c: no new initialize, the client's info is there", async () => {
      const cluster = await startCluster(["a", "b", "c"]);
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        for (const [name, id] of [
          ["b", 1],
          ["c", 2],
          ["a", 3],
        ] as const) {
          const body = JSON.parse(text(await callJson(cluster.at(raw, name), "where", id)));
          assert.equal(body.instance, name);
          assert.deepEqual(body.clientInfo, { name: "raw-legacy", version: "0" });
        }
        const stranger = new RawSession(cluster.instance("b").url);
        stranger.sessionId = "not-a-session";
        assert.equal((await stranger.post(call("where", {}, 4))).status, 404);
      } finally {
        await cluster.close();
      }
    });

    it("an elicitation sent from a is answered by a POST on b", async () => {
      const cluster = await startCluster(["a", "b"]);
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        const stream = new SseEvents(await raw.post(call("ask", {}, 7)));
        let request = await stream.next();
        while (request && request.message?.method !== "elicitation/create") {
          request = await stream.next();
        }
        assert.ok(request, "the elicitation request");
        // Its id names the instance that asked.
        assert.match(String(request.message.id), /^a\./);
        const answer = {
          jsonrpc: "2.0",
          id: request.message.id,
          result: { action: "accept", content: { name: "Ada" } },
        };
        assert.equal((await cluster.at(raw, "b").post(answer)).status, 202);
        const rest = await stream.rest();
        const reply = rest.find((event) => event.message?.id === 7);
        assert.deepEqual(JSON.parse(reply?.message.result.content[0].text), {
          action: "accept",
          content: { name: "Ada" },
        });
      } finally {
        await cluster.close();
      }
    });

    it("notifications/cancelled on b stops the request running on a", async () => {
      const cluster = await startCluster(["a", "b"]);
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        const stream = new SseEvents(await raw.post(call("stuck", {}, "s1", "p")));
        assert.equal((await stream.next())?.message, undefined); // priming
        assert.equal((await stream.next())?.message.method, "notifications/progress");
        const cancel = {
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: "s1", reason: "changed my mind" },
        };
        assert.equal((await cluster.at(raw, "b").post(cancel)).status, 202);
        assert.equal(await cluster.probe.stuckStopped, "a");
        // The stream ends without a reply (a cancelled request gets none).
        assert.deepEqual(await stream.rest(), []);
      } finally {
        await cluster.close();
      }
    });

    it("logging/setLevel on b holds for a request on a", async () => {
      const cluster = await startCluster(["a", "b"]);
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        assert.equal(text(await callJson(raw, "where", 1)).includes('"a"'), true); // a holds a copy
        const level = {
          jsonrpc: "2.0",
          id: 2,
          method: "logging/setLevel",
          params: { level: "error" },
        };
        const leveled = await cluster.at(raw, "b").post(level);
        assert.equal(leveled.status, 200);
        await leveled.body?.cancel();
        await callJson(raw, "where", 4); // a round trip through a after the change
        const logged = await new SseEvents(await raw.post(call("logs", {}, 3))).rest();
        assert.deepEqual(
          logged
            .filter((event) => event.message?.method)
            .map((event) => event.message.params.level),
          ["error"],
        );
        assert.equal(logged.at(-1)?.message.result.content[0].text, "a");
      } finally {
        await cluster.close();
      }
    });

    it("subscribe on a, update announced on c: the GET stream held on b hears it once", async () => {
      const cluster = await startCluster(["a", "b", "c"]);
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        const listening = new SseEvents(await cluster.at(raw, "b").get());
        assert.equal((await listening.next())?.message, undefined); // priming
        for (const [uri, id] of [
          ["mem://one", 1],
          ["mem://two", 2],
        ] as const) {
          const subscribe = { jsonrpc: "2.0", id, method: "resources/subscribe", params: { uri } };
          const subscribed = await raw.post(subscribe);
          assert.equal(subscribed.status, 200);
          await subscribed.body?.cancel();
        }
        // A round trip through b: the news of the subscriptions reached it before this.
        await callJson(cluster.at(raw, "b"), "where", 3);
        cluster.instance("c").server.resourceUpdated("mem://one");
        cluster.instance("c").server.resourceUpdated("mem://two");
        const first = await listening.next();
        const second = await listening.next();
        assert.deepEqual(
          [first?.message.method, first?.message.params, second?.message.params],
          ["notifications/resources/updated", { uri: "mem://one" }, { uri: "mem://two" }],
        );
        await listening.cancel();
      } finally {
        await cluster.close();
      }
    });

    it("subscriptions made on a and b at the same moment both hold (compare-and-set, merged)", async () => {
      const cluster = await startCluster(["a", "b", "c"]);
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        await callJson(cluster.at(raw, "b"), "where", 1); // b holds a copy too
        const subscribe = (uri: string, id: number) => ({
          jsonrpc: "2.0",
          id,
          method: "resources/subscribe",
          params: { uri },
        });
        const answers = await Promise.all([
          raw.post(subscribe("mem://one", 2)),
          cluster.at(raw, "b").post(subscribe("mem://two", 3)),
        ]);
        for (const answer of answers) {
          assert.equal(answer.status, 200);
          await answer.body?.cancel();
        }
        const listening = new SseEvents(await cluster.at(raw, "c").get());
        await listening.next(); // priming
        cluster.instance("a").server.resourceUpdated("mem://one");
        cluster.instance("a").server.resourceUpdated("mem://two");
        const heard = [await listening.next(), await listening.next()];
        assert.deepEqual(
          heard.map((event) => event?.message.params.uri),
          ["mem://one", "mem://two"],
        );
        await listening.cancel();
      } finally {
        await cluster.close();
      }
    });

    it("DELETE on b ends the GET stream held on a, and the session everywhere", async () => {
      const cluster = await startCluster(["a", "b"]);
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        const listening = new SseEvents(await raw.get());
        assert.equal((await listening.next())?.message, undefined); // priming
        assert.equal((await cluster.at(raw, "b").delete()).status, 204);
        assert.deepEqual(await listening.rest(), []);
        assert.equal((await raw.post(call("where", {}, 1))).status, 404);
        assert.equal(await cluster.state.sessionCount(), 0);
        assert.equal(await cluster.state.streamCount(raw.sessionId!), 0);
      } finally {
        await cluster.close();
      }
    });

    it("a stream written on a, resumed on b with Last-Event-ID: replay, then live, every event once", async () => {
      const cluster = await startCluster(["a", "b"]);
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        const live = new SseEvents(await raw.post(call("gated", {}, 5, "g")));
        const priming = await live.next();
        assert.equal(priming?.message, undefined);
        await cluster.probe.gateReached;
        const progress = await live.next();
        assert.equal(progress?.message.params.progress, 1);
        await live.cancel(); // the connection breaks

        // Resumed from the priming event: the progress is replayed, the rest follows live.
        const resumed = new SseEvents(await cluster.at(raw, "b").get(priming!.id));
        const replayed = await resumed.next();
        assert.equal(replayed?.id, progress?.id);
        cluster.probe.release();
        const rest = await resumed.rest();
        assert.deepEqual(
          rest.map(
            (event) => event.message.params?.progress ?? event.message.result.content[0].text,
          ),
          [2, "released on a"],
        );
        const ids = [replayed!.id, ...rest.map((event) => event.id)];
        assert.equal(new Set(ids).size, 3);
      } finally {
        await cluster.close();
      }
    });

    it("the standalone stream moves to b on resume: what a produced before, then b's own", async () => {
      const cluster = await startCluster(["a", "b", "c"]);
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        const subscribe = {
          jsonrpc: "2.0",
          id: 1,
          method: "resources/subscribe",
          params: { uri: "mem://one" },
        };
        await (await raw.post(subscribe)).body?.cancel();
        const first = new SseEvents(await raw.get());
        const priming = await first.next();
        cluster.instance("c").server.resourceUpdated("mem://one");
        assert.equal((await first.next())?.message.params.uri, "mem://one");
        await first.cancel();
        cluster.instance("c").server.resourceUpdated("mem://one"); // while nobody listens

        const moved = new SseEvents(await cluster.at(raw, "b").get(priming!.id));
        const replayed = [await moved.next(), await moved.next()];
        assert.deepEqual(
          replayed.map((event) => event?.message.method),
          ["notifications/resources/updated", "notifications/resources/updated"],
        );
        // Until a hears that b took over, what it hears still goes out on its old stream (b
        // passes it on); then on b's own, whose ids name b.
        for (let round = 0; ; round++) {
          assert.ok(round < 100, "b's own stream never carried an event");
          cluster.instance("c").server.resourceUpdated("mem://one");
          const after = await moved.next();
          assert.equal(after?.message.params.uri, "mem://one");
          if (String(after?.id).startsWith("b.")) break;
          assert.match(String(after?.id), /^a\./);
        }
        await moved.cancel();
      } finally {
        await cluster.close();
      }
    });

    it("a made-up cursor gets a fresh standalone stream and leaves nothing in the store", async () => {
      const cluster = await startCluster(["a", "b"]);
      try {
        // One session per cursor: a standalone stream, a request stream, neither ever written.
        for (const cursor of ["zz.gAAAAAAAAAAAA:3", "a.rAAAAAAAAAAAA:1"]) {
          const raw = new RawSession(cluster.instance("a").url);
          await raw.open();
          const stream = new SseEvents(await cluster.at(raw, "b").get(cursor));
          const priming = await stream.next();
          assert.equal(priming?.message, undefined);
          assert.match(String(priming?.id), /^b\.g/);
          await stream.cancel();
          assert.equal(await cluster.state.streamCount(raw.sessionId!), 0);
        }
      } finally {
        await cluster.close();
      }
    });

    it("a killed mid-request: the stream resumed on b ends with the error reply", async () => {
      const cluster = await startCluster(["a", "b", "c"]);
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        const live = new SseEvents(await raw.post(call("gated", {}, 9, "k")));
        assert.equal((await live.next())?.message, undefined); // priming
        const progress = await live.next();
        assert.equal(progress?.message.params.progress, 1);
        await live.cancel();
        await cluster.state.sever("a");

        // Two instances resume at once: the error reply is written once.
        const [onB, onC] = await Promise.all([
          cluster.at(raw, "b").get(progress!.id),
          cluster.at(raw, "c").get(progress!.id),
        ]);
        for (const response of [onB, onC]) {
          const rest = await new SseEvents(response).rest();
          assert.equal(rest.length, 1);
          assert.equal(rest[0]?.message.id, 9);
          assert.equal(rest[0]?.message.error.code, -32603);
          assert.equal(rest[0]?.message.error.message, RESTARTED_BEFORE_REPLY);
        }
      } finally {
        await cluster.close();
      }
    });

    it("a dies while b follows its stream: b ends it with the error reply once a's lease is over", async () => {
      const cluster = await startCluster(["a", "b"], {}, 600);
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        const live = new SseEvents(await raw.post(call("gated", {}, 6, "d")));
        assert.equal((await live.next())?.message, undefined); // priming
        const progress = await live.next();
        await live.cancel();
        const resumed = new SseEvents(await cluster.at(raw, "b").get(progress!.id));
        await cluster.state.sever("a");
        const rest = await resumed.rest();
        assert.deepEqual(
          rest.map((event) => [event.message.id, event.message.error?.message]),
          [[6, RESTARTED_BEFORE_REPLY]],
        );
      } finally {
        await cluster.close();
      }
    });

    it("a closing with a request past its grace: resumed on b, the request ends with the error reply", async () => {
      const cluster = await startCluster(["a", "b"]);
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        const live = new SseEvents(await raw.post(call("gated", {}, 3, "c")));
        await live.next(); // priming
        const progress = await live.next();
        await cluster.instance("a").served.close();
        await live.rest();
        const rest = await new SseEvents(await cluster.at(raw, "b").get(progress!.id)).rest();
        assert.deepEqual(
          rest.map((event) => event.message.error?.message),
          [RESTARTED_BEFORE_REPLY],
        );
        // The session itself carries on.
        const body = JSON.parse(text(await callJson(cluster.at(raw, "b"), "where", 4)));
        assert.equal(body.instance, "b");
      } finally {
        await cluster.close();
      }
    });

    it("idle expiry is cluster-wide: a copy idle on a is dropped, not ended; idle everywhere ends it", async () => {
      const cluster = await startCluster(["a", "b"], { sessionIdleMs: 400 });
      try {
        const raw = new RawSession(cluster.instance("a").url);
        await raw.open();
        const onB = cluster.at(raw, "b");
        // Busy on b for longer than the idle limit, while a's copy sits idle.
        const until = Date.now() + 1_200;
        for (let id = 1; Date.now() < until; id++) {
          assert.equal((await onB.post(call("where", {}, id))).status, 200);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const back = JSON.parse(text(await callJson(raw, "where", 100)));
        assert.equal(back.instance, "a");
        // Now idle everywhere: it ends.
        await waitFor("the session to end everywhere", async () =>
          (await cluster.state.sessionCount()) === 0 ? true : undefined,
        );
        assert.equal((await onB.post(call("where", {}, 200))).status, 404);
        assert.equal((await raw.post(call("where", {}, 201))).status, 404);
      } finally {
        await cluster.close();
      }
    });
  });
}
