import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { cacheKey, ResultCache, stableStringify } from "../../src/client/result-cache.js";
import { mockClock } from "../helpers/mock-clock.js";
import { until } from "../helpers/poll.js";
import { discoverResult, type FakeServer, fakePair } from "./fake-server.js";

const clientInfo = { name: "test-client", version: "0.0.1" };

async function connected(
  setup: (server: FakeServer) => void,
  cache?: boolean,
): Promise<{ client: McpClient; server: FakeServer; notifications: string[] }> {
  const { transport, server } = fakePair();
  server.on("server/discover", discoverResult({ ttlMs: 60_000, cacheScope: "public" }));
  setup(server);
  const notifications: string[] = [];
  const client = new McpClient({
    clientInfo,
    onNotification: (method) => notifications.push(method),
    ...(cache === undefined ? {} : { cache }),
  });
  await client.connect(transport);
  return { client, server, notifications };
}

function count(server: FakeServer, method: string): number {
  return server.requests(method).length;
}

describe("ttlMs caching", () => {
  it("serves a fresh result without a round trip, until list_changed invalidates it", async () => {
    let version = 1;
    const { client, server, notifications } = await connected((server) =>
      server.on("tools/list", () => ({
        result: {
          tools: [{ name: `v${version}`, inputSchema: {} }],
          ttlMs: 60_000,
          cacheScope: "public",
        },
      })),
    );
    const first = await client.listTools();
    first.tools.length = 0; // callers cannot damage the cached copy
    const second = await client.listTools();
    assert.deepEqual(
      second.tools.map((tool) => tool.name),
      ["v1"],
    );
    assert.equal(count(server, "tools/list"), 1);

    version = 2;
    await server.notify("notifications/prompts/list_changed"); // unrelated: no effect
    await server.notify("notifications/tools/list_changed");
    await until(() => notifications.length === 2, "the notifications");
    assert.deepEqual(notifications, [
      "notifications/prompts/list_changed",
      "notifications/tools/list_changed",
    ]);
    const third = await client.listTools();
    assert.deepEqual(
      third.tools.map((tool) => tool.name),
      ["v2"],
    );
    assert.equal(count(server, "tools/list"), 2);
    await client.close();
  });

  it("keys by method and params (not _meta): another cursor or uri is another entry", async () => {
    const { client, server } = await connected((server) =>
      server
        .on("tools/list", { result: { tools: [], ttlMs: 60_000 } })
        .on("resources/read", (request) => ({
          result: { contents: [{ uri: request.params?.uri as string, text: "x" }], ttlMs: 60_000 },
        })),
    );
    await client.listTools();
    await client.listTools({ cursor: "2" });
    await client.listTools({ cursor: "2" }, { _meta: { traceparent: "00-1-2-01" } });
    assert.equal(count(server, "tools/list"), 2);
    await client.readResource("file:///a");
    await client.readResource("file:///b");
    await client.readResource("file:///a");
    assert.equal(count(server, "resources/read"), 2);
    await client.close();
  });

  it("resources/updated invalidates that resource's read only", async () => {
    const { client, server, notifications } = await connected((server) =>
      server.on("resources/read", (request) => ({
        result: { contents: [{ uri: request.params?.uri as string, text: "x" }], ttlMs: 60_000 },
      })),
    );
    await client.readResource("file:///a");
    await client.readResource("file:///b");
    await server.notify("notifications/resources/updated", { uri: "file:///a" });
    await until(() => notifications.length === 1, "the notification");
    await client.readResource("file:///a");
    await client.readResource("file:///b");
    assert.deepEqual(
      server.requests("resources/read").map((request) => request.params?.uri),
      ["file:///a", "file:///b", "file:///a"],
    );
    await client.close();
  });

  it("does not cache ttlMs 0, a negative ttlMs, or a missing one", async () => {
    const ttls = [0, -5, undefined];
    let call = 0;
    const { client, server } = await connected((server) =>
      server.on("prompts/list", () => ({ result: { prompts: [], ttlMs: ttls[call++ % 3] } })),
    );
    for (let i = 0; i < 6; i++) await client.listPrompts();
    assert.equal(count(server, "prompts/list"), 6);
    await client.close();
  });

  it("re-fetches once the ttl has run out", async (t) => {
    const clock = mockClock(t);
    const { client, server } = await connected((server) =>
      server.on("resources/templates/list", { result: { resourceTemplates: [], ttlMs: 30 } }),
    );
    await client.listResourceTemplates();
    await clock.advance(29);
    await client.listResourceTemplates();
    assert.equal(count(server, "resources/templates/list"), 1, "fresh for 30 ms");
    await clock.advance(2);
    await client.listResourceTemplates();
    assert.equal(count(server, "resources/templates/list"), 2);
    await client.close();
  });

  it("serves discover from the probe's result and honours cache: false", async () => {
    const cached = await connected(() => {});
    const discovered = await cached.client.discover();
    assert.deepEqual(discovered.supportedVersions, ["2026-07-28"]);
    assert.equal(count(cached.server, "server/discover"), 1);
    await cached.client.close();

    const uncached = await connected(
      (server) => server.on("tools/list", { result: { tools: [], ttlMs: 60_000 } }),
      false,
    );
    await uncached.client.discover();
    await uncached.client.listTools();
    await uncached.client.listTools();
    assert.equal(count(uncached.server, "server/discover"), 2);
    assert.equal(count(uncached.server, "tools/list"), 2);
    await uncached.client.close();
  });

  it("never caches requests carrying inputResponses or requestState", async () => {
    const { client, server } = await connected((server) =>
      server.on("resources/read", { result: { contents: [], ttlMs: 60_000 } }),
    );
    const params = { uri: "file:///a", requestState: "s1" };
    await client.request("resources/read", params);
    await client.request("resources/read", params);
    assert.equal(count(server, "resources/read"), 2);
    await client.close();
  });
});

describe("ResultCache", () => {
  it("expires entries by the clock it is given and records the scope", () => {
    let now = 1000;
    const cache = new ResultCache({ now: () => now });
    cache.set("tools/list", { _meta: { a: 1 } }, { tools: [], ttlMs: 100, cacheScope: "private" });
    assert.deepEqual(cache.get("tools/list", {}), { tools: [], ttlMs: 100, cacheScope: "private" });
    assert.equal(cache.scopeOf("tools/list", undefined), "private");
    now = 1099;
    assert.ok(cache.get("tools/list", undefined));
    now = 1100;
    assert.equal(cache.get("tools/list", undefined), undefined);
    assert.equal(cache.size, 0);
  });

  it("evicts the oldest entry past maxEntries and refuses uncacheable methods", () => {
    const cache = new ResultCache({ maxEntries: 2 });
    for (const uri of ["a", "b", "c"])
      cache.set("resources/read", { uri }, { contents: [], ttlMs: 1000 });
    assert.equal(cache.get("resources/read", { uri: "a" }), undefined);
    assert.ok(cache.get("resources/read", { uri: "c" }));
    assert.equal(ResultCache.cacheable("tools/call", {}), false);
    assert.equal(ResultCache.cacheable("tools/list", { inputResponses: {} }), false);
    assert.equal(ResultCache.cacheable("tools/list", undefined), true);
  });

  it("builds keys from stable JSON", () => {
    assert.equal(
      stableStringify({ b: [1, { d: 1, c: 2 }], a: null }),
      '{"a":null,"b":[1,{"c":2,"d":1}]}',
    );
    assert.equal(cacheKey("x", { b: 1, a: 2, _meta: { z: 1 } }), cacheKey("x", { a: 2, b: 1 }));
  });
});
