/**
 * rateLimit(): a fixed window per caller; over the limit the request is refused before its
 * handler with RATE_LIMITED and when to retry. In memory (a clock of the test's own, a bounded
 * number of keys) and in Redis, shared by two server instances over HTTP.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import {
  MemoryRateLimitStore,
  RATE_LIMITED,
  type RateLimitOptions,
  rateLimit,
} from "../../src/middleware/index.js";
import { RedisRateLimitStore } from "../../src/redis/index.js";
import { McpServer } from "../../src/server/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";
import { type SharedRedis, sharedRedis } from "../helpers/redis.js";
import { memoryClient } from "./memory-client.js";

function limitedServer(options: RateLimitOptions, ran: string[]): McpServer {
  const server = new McpServer({
    serverInfo: { name: "limited", version: "1" },
    onError: () => {},
  });
  server.use(rateLimit(options));
  server.tool({ name: "work" }, (_args, context) => {
    ran.push(String(context.principal ?? "anonymous"));
    return "done";
  });
  return server;
}

async function outcome(promise: Promise<unknown>): Promise<"ok" | JsonRpcError> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    assert.ok(error instanceof JsonRpcError, `expected a JsonRpcError, got ${String(error)}`);
    return error;
  }
}

describe("MemoryRateLimitStore", () => {
  it("counts a fixed window per key and starts a new one when it ends", async () => {
    let now = 1_000;
    const store = new MemoryRateLimitStore({ now: () => now });
    assert.deepEqual(await store.consume("a", 2, 100), {
      allowed: true,
      remaining: 1,
      retryAfterMs: 100,
    });
    now += 40;
    assert.deepEqual(await store.consume("a", 2, 100), {
      allowed: true,
      remaining: 0,
      retryAfterMs: 60,
    });
    assert.deepEqual(await store.consume("a", 2, 100), {
      allowed: false,
      remaining: 0,
      retryAfterMs: 60,
    });
    assert.equal((await store.consume("b", 2, 100)).allowed, true);
    now += 60;
    assert.deepEqual(await store.consume("a", 2, 100), {
      allowed: true,
      remaining: 1,
      retryAfterMs: 100,
    });
  });

  it("never holds more keys than maxKeys, dropping ended windows first", async () => {
    let now = 0;
    const store = new MemoryRateLimitStore({ maxKeys: 100, now: () => now });
    for (let i = 0; i < 100; i++) await store.consume(`old${i}`, 1, 10);
    now = 20; // every window above has ended
    await store.consume("fresh", 1, 1000);
    assert.equal(store.size, 1);
    for (let i = 0; i < 1000; i++) await store.consume(`flood${i}`, 1, 1000);
    assert.equal(store.size, 100);
  });
});

for (const era of ["modern", "legacy"] as const) {
  describe(`rateLimit, era ${era}`, () => {
    it("refuses over the limit before the handler runs, with when to retry", async () => {
      const ran: string[] = [];
      const client = await memoryClient(
        limitedServer({ limit: 3, windowMs: 60_000, methods: ["tools/call"] }, ran),
        era,
      );
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await outcome(client.callTool("work", {})));
      assert.deepEqual(results.slice(0, 3), ["ok", "ok", "ok"]);
      for (const refused of results.slice(3)) {
        assert.ok(refused instanceof JsonRpcError);
        assert.equal(refused.code, RATE_LIMITED);
        assert.match(
          refused.message,
          /Rate limit reached \(3 requests per 60000 ms\); retry in \d+ s/,
        );
        const data = refused.data as { retryAfterMs: number; limit: number };
        assert.ok(data.retryAfterMs > 0 && data.retryAfterMs <= 60_000);
        assert.equal(data.limit, 3);
      }
      assert.equal(ran.length, 3);
      // Methods it does not count still work.
      assert.ok((await client.listTools()).tools.length === 1);
      await client.close();
    });
  });
}

describe("rateLimit options", () => {
  it("refuses nonsense limits", () => {
    assert.throws(() => rateLimit({ limit: 0, windowMs: 1000 }), /limit/);
    assert.throws(() => rateLimit({ limit: 1, windowMs: 0.5 }), /windowMs/);
  });

  it("lets a request through uncounted when the key function says so", async () => {
    const ran: string[] = [];
    const client = await memoryClient(
      limitedServer({ limit: 1, windowMs: 60_000, key: () => undefined }, ran),
      "modern",
    );
    for (let i = 0; i < 3; i++) await client.callTool("work", {});
    assert.equal(ran.length, 3);
    await client.close();
  });
});

describe("rateLimit in Redis, shared by two instances", () => {
  let redis: SharedRedis;
  const served: ServedHttp[] = [];
  const clients: McpClient[] = [];
  before(async () => {
    redis = await sharedRedis("the Redis rate limit store");
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(served.map((server) => server.close()));
    await redis?.cleanup();
  });

  it("counts a caller's requests on every instance, each caller on its own", async () => {
    const ran: string[] = [];
    const store = new RedisRateLimitStore(redis.client, { prefix: redis.prefix });
    for (let i = 0; i < 2; i++) {
      const server = limitedServer(
        { limit: 4, windowMs: 60_000, store, methods: ["tools/call"] },
        ran,
      );
      served.push(
        await serveHttp(server, {
          authenticate: (request) => request.headers.get("x-user") ?? "nobody",
        }),
      );
    }
    const clientOf = async (user: string, instance: number) => {
      const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era: "modern" });
      await client.connect(
        new HttpClientTransport(served[instance]!.url, {
          headers: { "x-user": user },
          flavourCache: new Map(),
        }),
      );
      clients.push(client);
      return client;
    };
    const adaOnFirst = await clientOf("ada", 0);
    const adaOnSecond = await clientOf("ada", 1);
    // Ten at once across both instances: exactly the limit gets through.
    const burst = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        outcome((i % 2 ? adaOnFirst : adaOnSecond).callTool("work", {})),
      ),
    );
    assert.equal(burst.filter((result) => result === "ok").length, 4);
    assert.ok(burst.every((result) => result === "ok" || result.code === RATE_LIMITED));
    const alan = await clientOf("alan", 1);
    assert.equal(await outcome(alan.callTool("work", {})), "ok");
    assert.deepEqual(ran.sort(), ["ada", "ada", "ada", "ada", "alan"]);
    // The counters expire with their window; nothing is left without an expiry.
    const keys = await redis.keys();
    assert.equal(keys.length, 2);
    for (const key of keys) {
      const ttl = await redis.client.pTTL(key);
      assert.ok(ttl > 0 && ttl <= 60_000, `key ${key} has ttl ${ttl}`);
    }
  });
});
