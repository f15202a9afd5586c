/**
 * The in-memory event store's bounds (streams per session, least recently written first; events
 * per stream, oldest first; of streams delivered whole, the newest) and the list they are kept
 * in; then over real HTTP: a session's newest delivered answer resumes from its priming id, the
 * one before it is gone (a fresh standalone stream instead), and an answer whose client left
 * before its end resumes after later ones were delivered.
 */
import assert from "node:assert/strict";
import { Agent, request } from "node:http";
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

  it("keeps only the newest delivered stream of a session; others stay under the bound", () => {
    const store = new InMemoryEventStore();
    for (const stream of ["open", "d1", "d2"]) store.append("A", stream, event(stream, 1));
    store.delivered("A", "unknown");
    store.delivered("B", "d1");
    assert.equal(store.streamCount("A"), 3);
    store.delivered("A", "d1");
    assert.deepEqual(seqs(store.eventsAfter("A", "d1", 0)), [1]);
    store.delivered("A", "d2");
    assert.equal(store.eventsAfter("A", "d1", 0), undefined);
    assert.deepEqual(seqs(store.eventsAfter("A", "d2", 0)), [1]);
    assert.deepEqual(seqs(store.eventsAfter("A", "open", 0)), [1]);
    assert.equal(store.streamCount("A"), 2);
  });

  it("holds a session's bound however many streams come and go", () => {
    const store = new InMemoryEventStore({ maxStreamsPerSession: 5 });
    for (let n = 0; n < 2_000; n++) store.append("A", `s${n}`, event(`s${n}`, 1));
    assert.equal(store.streamCount("A"), 5);
    assert.deepEqual(seqs(store.eventsAfter("A", "s1999", 0)), [1]);
    assert.equal(store.eventsAfter("A", "s1994", 0), undefined);
  });
});

/** Tells when the server stored an event or reported a stream delivered (no test waits on timing). */
class WatchedStore extends InMemoryEventStore {
  private readonly seen = new Set<string>();
  private readonly waiters = new Map<string, () => void>();

  override append(sessionId: string, streamId: string, stored: StoredEvent): void {
    super.append(sessionId, streamId, stored);
    this.saw(stored.id);
  }

  override delivered(sessionId: string, streamId: string): void {
    super.delivered(sessionId, streamId);
    this.saw(`delivered ${streamId}`);
  }

  /** Resolves once `what` (an event id, or "delivered <stream>") has happened. */
  reached(what: string): Promise<void> {
    if (this.seen.has(what)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(what, resolve));
  }

  private saw(what: string): void {
    this.seen.add(what);
    this.waiters.get(what)?.();
  }
}

function streamOf(eventId: string | undefined): string {
  assert.ok(eventId, "event has an id");
  return eventId.slice(0, eventId.lastIndexOf(":"));
}

describe("legacy Streamable HTTP: delivered answers in the event store", () => {
  const store = new WatchedStore();
  let served: Awaited<ReturnType<typeof startLegacyServer>>;
  // One keep-alive connection: each answer's next request comes on the connection it used.
  let agent: Agent;
  before(async () => {
    served = await startLegacyServer({ responseMode: "sse", legacy: { eventStore: store } });
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
  });
  after(async () => {
    agent.destroy();
    await served.close();
  });

  /** One echo call on the agent's connection, answered whole; the id of its answer's stream. */
  function answer(session: RawSession, id: number): Promise<string> {
    const body = JSON.stringify(call("echo", { text: `t${id}` }, id));
    const headers = Object.fromEntries(session.headers());
    return new Promise((resolve, reject) => {
      const req = request(served.url, { method: "POST", agent, headers }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => {
          assert.ok(text.includes(`"text":"t${id}"`), text);
          resolve(streamOf(/^id: (.+)$/m.exec(text)?.[1]));
        });
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  it("keeps a session's newest delivered answer resumable; the one before it goes", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const first = await answer(session, 1);
    // Each request on the connection shows that the answer before it was taken whole.
    const second = await answer(session, 2);
    await answer(session, 3);
    await store.reached(`delivered ${second}`);

    const fresh = new SseEvents(await session.get(`${first}:0`));
    const priming = await fresh.next();
    assert.notEqual(streamOf(priming?.id), first);
    assert.equal(priming?.message, undefined);
    await fresh.cancel();
    const latest = await new SseEvents(await session.get(`${second}:0`)).rest();
    assert.deepEqual(
      latest.map((event) => [event.id, event.message?.result?.content[0].text]),
      [[`${second}:1`, "t2"]],
    );
  });

  it("an answer whose client left before its end stays resumable after later ones", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const gate = served.gate();
    const events = new SseEvents(await session.post(call("gated", {}, 11, "g")));
    const primed = await events.next();
    const first = await events.next();
    assert.equal(first?.message.params.progress, 1);
    await gate.waiting;
    await events.cancel();
    gate.release();
    const stream = streamOf(primed?.id);
    await store.reached(`${stream}:3`);
    // Later answers, taken whole, leave the broken one where it is.
    await answer(session, 12);
    const thirteen = await answer(session, 13);
    await answer(session, 14);
    await store.reached(`delivered ${thirteen}`);

    const rest = await new SseEvents(await session.get(first?.id)).rest();
    assert.deepEqual(
      rest.map((event) => event.id),
      [`${stream}:2`, `${stream}:3`],
    );
    assert.equal(rest[1]?.message.result.content[0].text, "released");
  });
});
