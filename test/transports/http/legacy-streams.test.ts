/**
 * SSE streams of legacy Streamable HTTP sessions over real HTTP: the standalone GET stream (one
 * at a time, unrelated notifications), request-scoped POST streams (progress, server-to-client
 * requests answered by POSTing the response), and resumption with Last-Event-ID: a stream
 * broken mid-call loses and duplicates nothing, and another session's cursor replays nothing.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { waitFor } from "../../helpers/poll.js";
import { json } from "./http-helpers.js";
import {
  call,
  type LegacyServed,
  RawSession,
  SseEvents,
  startLegacyServer,
} from "./legacy-helpers.js";

function streamOf(eventId: string | undefined): string {
  assert.ok(eventId, "event has an id");
  return eventId.slice(0, eventId.lastIndexOf(":"));
}

describe("legacy Streamable HTTP: the standalone GET stream", () => {
  let served: LegacyServed;
  before(async () => {
    served = await startLegacyServer();
  });
  after(() => served.close());

  it("opens with a priming event, allows one at a time (409), and reopens after a close", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const first = await session.get();
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("content-type"), "text/event-stream");
    const events = new SseEvents(first);
    const priming = await events.next();
    assert.equal(priming?.data, "");
    assert.match(priming?.id ?? "", /:0$/);
    assert.equal(typeof priming?.retry, "number");

    const second = await session.get();
    assert.equal(second.status, 409);
    await second.body?.cancel();

    await events.cancel();
    const third = await eventuallyStatus(() => session.get(), 200);
    await third.body?.cancel();
  });

  it("refuses a GET that does not accept text/event-stream with 406", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const response = await session.get(undefined, { Accept: "application/json" });
    assert.equal(response.status, 406);
    await response.body?.cancel();
  });

  it("carries list_changed notifications that belong to no request", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const events = new SseEvents(await session.get());
    await events.next(); // priming
    const marker = served.mcp.tool(
      { name: "brand-new", inputSchema: { type: "object" } },
      () => "x",
    );
    try {
      const event = await events.next();
      assert.equal(event?.message.method, "notifications/tools/list_changed");
      assert.equal(streamOf(event?.id), streamOf(event?.id));
    } finally {
      marker.remove();
      await events.cancel();
    }
  });
});

describe("legacy Streamable HTTP: POST streams", () => {
  let served: LegacyServed;
  before(async () => {
    served = await startLegacyServer();
  });
  after(() => served.close());

  it("streams progress then the result, every event with an id of one stream", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const response = await session.post(call("steps", {}, 7, "tok"));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    assert.equal(response.headers.get("mcp-session-id"), session.sessionId);
    const events = await new SseEvents(response).rest();
    assert.equal(events.length, 5);
    const [priming, ...messages] = events;
    assert.equal(priming?.data, "");
    assert.equal(typeof priming?.retry, "number");
    const stream = streamOf(priming?.id);
    assert.deepEqual(
      events.map((event) => event.id),
      [0, 1, 2, 3, 4].map((seq) => `${stream}:${seq}`),
    );
    assert.deepEqual(
      messages.slice(0, 3).map((event) => [event.message.method, event.message.params.progress]),
      [1, 2, 3].map((step) => ["notifications/progress", step]),
    );
    assert.equal(messages[3]?.message.id, 7);
    assert.equal(messages[3]?.message.result.content[0].text, "done");
  });

  it("sends a server request (elicitation) on the POST stream and takes the answer by POST", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const events = new SseEvents(await session.post(call("ask", {}, "q1")));
    await events.next(); // priming
    const asked = (await events.next())?.message;
    assert.equal(asked.method, "elicitation/create");
    assert.equal(asked.params.message, "Your name?");
    const answer = await session.post({
      jsonrpc: "2.0",
      id: asked.id,
      result: { action: "accept", content: { name: "Ada" } },
    });
    assert.equal(answer.status, 202);
    const done = await events.next();
    assert.equal(done?.message.id, "q1");
    assert.deepEqual(JSON.parse(done?.message.result.content[0].text), {
      action: "accept",
      content: { name: "Ada" },
    });
    assert.equal(await events.next(), undefined);
  });

  it("answers three concurrent requests of one session, each on its own reply", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const replies = await Promise.all(
      [1, 2, 3].map((id) => session.post({ jsonrpc: "2.0", id, method: "tools/list" })),
    );
    for (const [index, reply] of replies.entries()) {
      assert.equal(reply.status, 200);
      assert.equal((await json(reply)).id, index + 1);
    }
  });
});

describe("legacy Streamable HTTP: cancellation", () => {
  it("notifications/cancelled stops the handler and ends its stream without a reply", async () => {
    const served = await startLegacyServer();
    try {
      const session = new RawSession(served.url);
      await session.open();
      const events = new SseEvents(await session.post(call("hold", { stream: true }, 31, "h")));
      await events.next(); // priming
      assert.equal((await events.next())?.message.method, "notifications/progress");
      await served.probe.holdStarted;
      const cancel = await session.post({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 31, reason: "changed my mind" },
      });
      assert.equal(cancel.status, 202);
      await served.probe.holdAborted;
      assert.equal(await events.next(), undefined);
      // The id is free again.
      const again = await session.post(call("echo", { text: "next" }, 31));
      assert.equal((await json(again)).result.content[0].text, "next");
    } finally {
      await served.close();
    }
  });
});

describe("legacy Streamable HTTP: resumption with Last-Event-ID", () => {
  let served: LegacyServed;
  before(async () => {
    served = await startLegacyServer();
  });
  after(() => served.close());

  it("resumes a POST stream broken mid-call: nothing lost, nothing duplicated", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const gate = served.gate();
    const events = new SseEvents(await session.post(call("gated", {}, 11, "g")));
    const priming = await events.next();
    const first = await events.next();
    assert.equal(first?.message.params.progress, 1);
    await gate.waiting;
    // The connection breaks while the tool is still running.
    await events.cancel();
    gate.release();

    const resumed = await session.get(first?.id);
    assert.equal(resumed.status, 200);
    const rest = await new SseEvents(resumed).rest();
    const stream = streamOf(priming?.id);
    assert.deepEqual(
      rest.map((event) => event.id),
      [`${stream}:2`, `${stream}:3`],
    );
    assert.equal(rest[0]?.message.params.progress, 2);
    assert.equal(rest[1]?.message.id, 11);
    assert.equal(rest[1]?.message.result.content[0].text, "released");

    // Resuming again from the priming event replays the whole stream, still in order.
    const replay = await new SseEvents(await session.get(priming?.id)).rest();
    assert.deepEqual(
      replay.map((event) => event.id),
      [1, 2, 3].map((seq) => `${stream}:${seq}`),
    );
  });

  it("resumes while the call is still running, then continues live", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const gate = served.gate();
    const events = new SseEvents(await session.post(call("gated", {}, 12, "g")));
    await events.next();
    const first = await events.next();
    await gate.waiting;
    await events.cancel();

    const response = await session.get(first?.id);
    assert.equal(response.status, 200);
    const resumed = new SseEvents(response);
    gate.release();
    const rest = await resumed.rest();
    assert.deepEqual(
      rest.map((event) => event.message.params?.progress ?? event.message.result.content[0].text),
      [2, "released"],
    );
  });

  it("a resume takes a stream over from a connection that still looks open", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const gate = served.gate();
    const events = new SseEvents(await session.post(call("gated", {}, 13, "g")));
    const priming = await events.next();
    const first = await events.next();
    await gate.waiting;
    const second = await session.get(first?.id);
    assert.equal(second.status, 200);
    // The old connection ends; the new one carries the rest, once.
    assert.equal(await events.next(), undefined);
    gate.release();
    const rest = await new SseEvents(second).rest();
    assert.deepEqual(
      rest.map((event) => event.id),
      [2, 3].map((seq) => `${streamOf(priming?.id)}:${seq}`),
    );
    assert.equal(rest.at(-1)?.message.id, 13);
  });

  it("never replays another session's stream", async () => {
    const a = new RawSession(served.url);
    await a.open();
    const b = new RawSession(served.url);
    await b.open();
    const aEvents = await new SseEvents(await a.post(call("steps", {}, 14, "a"))).rest();
    const cursor = aEvents[0]?.id;
    assert.ok(cursor);
    // B presents A's cursor: it gets a fresh stream of its own, not A's events.
    const stolen = new SseEvents(await b.get(cursor));
    const first = await stolen.next();
    assert.equal(first?.data, "");
    assert.notEqual(streamOf(first?.id), streamOf(cursor));
    // The next thing on B's stream is B's own notification, not A's progress or result.
    const marker = served.mcp.tool({ name: "marker", inputSchema: { type: "object" } }, () => "");
    try {
      assert.equal((await stolen.next())?.message.method, "notifications/tools/list_changed");
    } finally {
      marker.remove();
      await stolen.cancel();
    }
    // A itself can still resume its own stream.
    const own = await new SseEvents(await a.get(cursor)).rest();
    assert.equal(own.at(-1)?.message.id, 14);
  });

  it("a deleted session's streams are gone (404)", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const events = await new SseEvents(await session.post(call("steps", {}, 15, "x"))).rest();
    await session.delete();
    const response = await session.get(events[0]?.id);
    assert.equal(response.status, 404);
    await response.body?.cancel();
  });
});

describe("legacy Streamable HTTP: server-initiated disconnect (polling)", () => {
  let served: LegacyServed;
  before(async () => {
    served = await startLegacyServer({
      legacy: {
        retryMs: 50,
        disconnectAfterPriming: (method, params) =>
          method === "tools/call" && (params as { name?: string }).name === "gated",
      },
    });
  });
  after(() => served.close());

  it("closes the POST stream after the priming event; a GET with Last-Event-ID gets the rest", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const gate = served.gate();
    const response = await session.post(call("gated", {}, 21, "p"));
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const opened = await new SseEvents(response).rest();
    assert.equal(opened.length, 1);
    assert.equal(opened[0]?.data, "");
    assert.equal(opened[0]?.retry, 50);
    await gate.waiting;
    gate.release();
    const rest = await new SseEvents(await session.get(opened[0]?.id)).rest();
    assert.deepEqual(
      rest.map((event) => event.message.params?.progress ?? event.message.result.content[0].text),
      [1, 2, "released"],
    );
  });

  it("answers other requests as usual", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const response = await session.post(call("echo", { text: "plain" }, 22));
    assert.equal((await json(response)).result.content[0].text, "plain");
  });
});

/** Retries `attempt` until it answers with `status` (a just-closed stream takes a moment). */
function eventuallyStatus(attempt: () => Promise<Response>, status: number): Promise<Response> {
  return waitFor(`HTTP ${status}`, async () => {
    const response = await attempt();
    if (response.status === status) return response;
    await response.body?.cancel();
    return undefined;
  });
}
