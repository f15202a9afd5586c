/**
 * The in-memory event store's bounds (streams per session, least recently written first; events
 * per stream, oldest first) and the list they are kept in; then over real HTTP: a finished SSE
 * answer resumes from its priming id while its session's bound still holds it, and a cursor it
 * evicted gets a fresh standalone stream, nothing of the old one.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  InMemoryEventStore,
  type StoredEvent,
} from "../../../src/transports/http/legacy/event-store.js";
import { RecentList } from "../../../src/transports/http/legacy/recent-list.js";
import { call, RawSession, SseEvents, startLegacyServer } from "./legacy-helpers.js";

function event(streamId: string, seq: number): StoredEvent {
  return {
    id: `${streamId}:${seq}`,
    seq,
    message: { jsonrpc: "2.0", method: "n", params: { seq } },
  };
}

function seqs(events: StoredEvent[] | undefined): number[] | undefined {
  return events?.map((stored) => stored.seq);
}

describe("RecentList", () => {
  it("keeps least recently used first; set and touch move a key to the end", () => {
    const list = new RecentList<number>();
    for (const [key, value] of [
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ] as const)
      list.set(key, value);
    assert.deepEqual([...list.values()], [1, 2, 3]);
    assert.equal(list.touch("a"), true);
    assert.equal(list.touch("zz"), false);
    assert.deepEqual([...list.values()], [2, 3, 1]);
    list.set("b", 20);
    assert.deepEqual([...list.values()], [3, 1, 20]);
    assert.equal(list.oldest(), "c");
    assert.equal(list.size, 3);
  });

  it("deletes from either end or the middle; a deleted key can come back as the newest", () => {
    const list = new RecentList<string>();
    for (const key of ["a", "b", "c", "d"]) list.set(key, key.toUpperCase());
    assert.equal(list.delete("b"), "B");
    assert.equal(list.delete("a"), "A");
    assert.equal(list.delete("d"), "D");
    assert.equal(list.delete("d"), undefined);
    assert.deepEqual([...list.values()], ["C"]);
    list.set("a", "again");
    assert.deepEqual([...list.values()], ["C", "again"]);
    assert.equal(list.get("b"), undefined);
    assert.equal(list.delete("c"), "C");
    assert.equal(list.delete("a"), "again");
    assert.equal(list.size, 0);
    assert.equal(list.oldest(), undefined);
    assert.deepEqual([...list.values()], []);
  });

  it("takes keys an object would confuse with its own (no prototype)", () => {
    const list = new RecentList<number>();
    assert.equal(list.get("__proto__"), undefined);
    assert.equal(list.get("constructor"), undefined);
    list.set("__proto__", 1);
    list.set("constructor", 2);
    assert.equal(list.get("__proto__"), 1);
    assert.deepEqual([...list.values()], [1, 2]);
  });
});

describe("InMemoryEventStore bounds", () => {
  it("drops the least recently written stream of a session past maxStreamsPerSession", () => {
    const store = new InMemoryEventStore({ maxStreamsPerSession: 3 });
    for (const stream of ["s1", "s2", "s3"]) store.append("A", stream, event(stream, 1));
    // s1 is written again: s2 is now the least recently written.
    store.append("A", "s1", event("s1", 2));
    store.append("A", "s4", event("s4", 1));
    assert.equal(store.streamCount("A"), 3);
    assert.equal(store.eventsAfter("A", "s2", 0), undefined);
    assert.deepEqual(seqs(store.eventsAfter("A", "s1", 0)), [1, 2]);
    assert.deepEqual(seqs(store.eventsAfter("A", "s1", 1)), [2]);
    assert.deepEqual(seqs(store.eventsAfter("A", "s3", 0)), [1]);
    // Another session's streams neither count nor show.
    store.append("B", "s2", event("s2", 1));
    assert.equal(store.streamCount("A"), 3);
    assert.equal(store.eventsAfter("B", "s1", 0), undefined);
    store.forgetSession("A");
    assert.equal(store.streamCount("A"), 0);
    assert.equal(store.eventsAfter("A", "s1", 0), undefined);
    assert.deepEqual(seqs(store.eventsAfter("B", "s2", 0)), [1]);
  });

  it("keeps the newest maxEventsPerStream events of a stream", () => {
    const store = new InMemoryEventStore({ maxEventsPerStream: 2 });
    for (let seq = 1; seq <= 5; seq++) store.append("A", "s", event("s", seq));
    assert.deepEqual(seqs(store.eventsAfter("A", "s", 0)), [4, 5]);
  });

  it("holds a session's bound however many streams come and go", () => {
    const store = new InMemoryEventStore({ maxStreamsPerSession: 5 });
    for (let n = 0; n < 2_000; n++) store.append("A", `s${n}`, event(`s${n}`, 1));
    assert.equal(store.streamCount("A"), 5);
    assert.deepEqual(seqs(store.eventsAfter("A", "s1999", 0)), [1]);
    assert.equal(store.eventsAfter("A", "s1994", 0), undefined);
  });
});

describe("legacy Streamable HTTP: finished answers in a bounded event store", () => {
  let served: Awaited<ReturnType<typeof startLegacyServer>>;
  before(async () => {
    served = await startLegacyServer({
      responseMode: "sse",
      legacy: { eventStore: new InMemoryEventStore({ maxStreamsPerSession: 3 }) },
    });
  });
  after(() => served.close());

  async function answer(session: RawSession, id: number): Promise<string> {
    const events = await new SseEvents(
      await session.post(call("echo", { text: `t${id}` }, id)),
    ).rest();
    assert.equal(events.at(-1)?.message.result.content[0].text, `t${id}`);
    assert.ok(events[0]?.id, "the priming event has an id");
    return events[0].id;
  }

  it("replays a finished answer while the bound holds it; an evicted one is not replayed", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const first = await answer(session, 1);
    await answer(session, 2);
    await answer(session, 3);
    const replay = await new SseEvents(await session.get(first)).rest();
    assert.deepEqual(
      replay.map((event) => event.message?.result?.content[0].text),
      ["t1"],
    );
    assert.equal(replay[0]?.id, `${first.slice(0, first.lastIndexOf(":"))}:1`);

    await answer(session, 4);
    // Stream 1 was the least recently written of four: its cursor is unknown now, and the GET
    // gets a fresh standalone stream instead (a priming event of another stream, nothing else).
    const fresh = new SseEvents(await session.get(first));
    const priming = await fresh.next();
    assert.ok(priming?.id && !priming.id.startsWith(first.slice(0, first.lastIndexOf(":"))));
    assert.equal(priming.message, undefined);
    await fresh.cancel();
  });
});
