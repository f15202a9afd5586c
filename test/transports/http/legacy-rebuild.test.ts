/**
 * Legacy sessions rebuilt from their records by a handler that never saw their `initialize`
 * (in one process here, two servers sharing in-memory stores; restart-resume.test.ts does it
 * across real processes with the file stores): what the client negotiated and changed since
 * comes back, a stranger cannot rebuild someone's session, idle records expire.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpServer } from "../../../src/server/index.js";
import { InMemoryEventStore } from "../../../src/transports/http/legacy/event-store.js";
import type { LegacyOptions } from "../../../src/transports/http/legacy/legacy-handler.js";
import { RESTARTED_BEFORE_REPLY } from "../../../src/transports/http/legacy/legacy-session.js";
import { InMemorySessionRecordStore } from "../../../src/transports/http/legacy/session-records.js";
import { serveHttp } from "../../../src/transports/http/node-adapter.js";
import type { Wire } from "./http-helpers.js";
import { call, initializeBody, RawSession, SseEvents } from "./legacy-helpers.js";

function buildServer(): McpServer {
  const server = new McpServer({
    serverInfo: { name: "rebuild", version: "1" },
    onError: () => {},
  });
  server.resource({ uri: "mem://watched", name: "watched" }, (uri) => [{ uri, text: "w" }]);
  server.tool({ name: "logs", inputSchema: { type: "object" } }, async (_args, context) => {
    await context.log.info("quiet");
    await context.log.error("loud");
    return "logged";
  });
  server.tool({ name: "stuck", inputSchema: { type: "object" } }, async (_args, context) => {
    await context.progress(1);
    // Runs until stopped: longer than any grace period.
    await new Promise((_resolve, reject) => {
      context.signal.addEventListener("abort", () => reject(context.signal.reason));
    });
    return "never";
  });
  server.tool({ name: "who", inputSchema: { type: "object" } }, (_args, context) =>
    JSON.stringify({ clientInfo: context.clientInfo, principal: context.principal }),
  );
  return server;
}

function storesFor(extra: LegacyOptions = {}): LegacyOptions {
  return {
    eventStore: new InMemoryEventStore(),
    sessionRecords: new InMemorySessionRecordStore(),
    retryMs: 20,
    shutdownGraceMs: 1_000,
    ...extra,
  };
}

/** The same session, addressed at another server. */
function sameSession(raw: RawSession, url: string): RawSession {
  const moved = new RawSession(url);
  moved.sessionId = raw.sessionId;
  return moved;
}

describe("legacy sessions rebuilt from their records", { timeout: 30_000 }, () => {
  it("keeps client info, subscriptions and the log level, without a new initialize", async () => {
    const legacy = storesFor();
    const first = await serveHttp(buildServer(), { legacy });
    const secondServer = buildServer();
    let second: Awaited<ReturnType<typeof serveHttp>> | undefined;
    try {
      const raw = new RawSession(first.url);
      await raw.open();
      const subscribed = await raw.post({
        jsonrpc: "2.0",
        id: 1,
        method: "resources/subscribe",
        params: { uri: "mem://watched" },
      });
      assert.equal(subscribed.status, 200);
      await subscribed.body?.cancel();
      const leveled = await raw.post({
        jsonrpc: "2.0",
        id: 2,
        method: "logging/setLevel",
        params: { level: "error" },
      });
      assert.equal(leveled.status, 200);
      await leveled.body?.cancel();
      await first.close();

      second = await serveHttp(secondServer, { legacy });
      const moved = sameSession(raw, second.url);
      const listening = await moved.get();
      assert.equal(listening.status, 200);
      assert.equal(listening.headers.get("mcp-session-id"), raw.sessionId);
      const stream = new SseEvents(listening);
      assert.equal((await stream.next())?.message, undefined); // priming
      secondServer.resourceUpdated("mem://watched");
      const updated = await stream.next();
      assert.equal(updated?.message.method, "notifications/resources/updated");
      assert.deepEqual(updated?.message.params, { uri: "mem://watched" });

      const logged = await new SseEvents(await moved.post(call("logs", {}, 3))).rest();
      assert.deepEqual(
        logged.filter((event) => event.message).map((event) => event.message.params?.level),
        ["error", undefined],
      );
      assert.equal(logged.at(-1)?.message.result.content[0].text, "logged");

      const who: Wire = await (await moved.post(call("who", {}, 4))).json();
      assert.deepEqual(JSON.parse(who.result.content[0].text).clientInfo, {
        name: "raw-legacy",
        version: "0",
      });
      await stream.cancel();
    } finally {
      await first.close();
      await second?.close();
    }
  });

  it("a request still running when the grace period ends: its resumption ends with -32603", async () => {
    const legacy = storesFor({ shutdownGraceMs: 100 });
    const first = await serveHttp(buildServer(), { legacy });
    let second: Awaited<ReturnType<typeof serveHttp>> | undefined;
    try {
      const raw = new RawSession(first.url);
      await raw.open();
      const live = new SseEvents(await raw.post(call("stuck", {}, 9, "p")));
      assert.equal((await live.next())?.message, undefined); // priming
      const progress = await live.next();
      assert.equal(progress?.message.method, "notifications/progress");
      await first.close();
      // The connection ended at close, with the reconnection delay and without a reply.
      const ending = await live.rest();
      assert.deepEqual(
        ending.map((event) => [event.retry, event.message]),
        [[20, undefined]],
      );

      second = await serveHttp(buildServer(), { legacy });
      const rest = await new SseEvents(await sameSession(raw, second.url).get(progress!.id)).rest();
      assert.equal(rest.length, 1);
      assert.equal(rest[0]?.message.id, 9);
      assert.equal(rest[0]?.message.error.code, -32603);
      assert.equal(rest[0]?.message.error.message, RESTARTED_BEFORE_REPLY);
    } finally {
      await first.close();
      await second?.close();
    }
  });

  it("a request from another principal neither finds nor rebuilds the session", async () => {
    const legacy = storesFor();
    const authenticate = (request: Request) => ({ user: request.headers.get("x-user") });
    const first = await serveHttp(buildServer(), { legacy, authenticate });
    let second: Awaited<ReturnType<typeof serveHttp>> | undefined;
    try {
      const opened = await new RawSession(first.url).post(initializeBody(), { "x-user": "ada" });
      assert.equal(opened.status, 200);
      const sessionId = opened.headers.get("mcp-session-id") ?? undefined;
      await opened.body?.cancel();
      await first.close();

      second = await serveHttp(buildServer(), { legacy, authenticate });
      const raw = new RawSession(second.url);
      raw.sessionId = sessionId;
      const stranger = await raw.post(call("who", {}, 1), { "x-user": "eve" });
      assert.equal(stranger.status, 404);
      await stranger.body?.cancel();
      const owner = await raw.post(call("who", {}, 2), { "x-user": "ada" });
      assert.equal(owner.status, 200);
      const body: Wire = await owner.json();
      assert.deepEqual(JSON.parse(body.result.content[0].text).principal, { user: "ada" });
    } finally {
      await first.close();
      await second?.close();
    }
  });

  it("an idle record expires: 404, and its record and events are gone", async () => {
    const events = new InMemoryEventStore();
    const records = new InMemorySessionRecordStore();
    const legacy = storesFor({
      eventStore: events,
      sessionRecords: records,
      sessionIdleMs: 60_000,
    });
    const first = await serveHttp(buildServer(), { legacy });
    let second: Awaited<ReturnType<typeof serveHttp>> | undefined;
    try {
      const raw = new RawSession(first.url);
      await raw.open();
      const streamed = await raw.post(call("logs", {}, 1));
      await new SseEvents(streamed).rest();
      await first.close();
      assert.ok(events.streamCount(raw.sessionId!) > 0);
      // Last used longer ago than the idle limit (as if the server had been down that long).
      const record = records.load(raw.sessionId!);
      assert.ok(record);
      records.save({ ...record, lastUsed: Date.now() - 61_000 });

      second = await serveHttp(buildServer(), { legacy });
      const late = await sameSession(raw, second.url).post(call("who", {}, 2));
      assert.equal(late.status, 404);
      await late.body?.cancel();
      assert.equal(records.size, 0);
      assert.equal(events.streamCount(raw.sessionId!), 0);
    } finally {
      await first.close();
      await second?.close();
    }
  });

  it("without a record store of its own, close() still ends sessions (nothing is kept)", async () => {
    const events = new InMemoryEventStore();
    const served = await serveHttp(buildServer(), { legacy: { eventStore: events } });
    const raw = new RawSession(served.url);
    await raw.open();
    await new SseEvents(await raw.post(call("logs", {}, 1))).rest();
    assert.ok(events.streamCount(raw.sessionId!) > 0);
    await served.close();
    assert.equal(events.streamCount(raw.sessionId!), 0);
  });
});
