/**
 * The client's result cache keeps "private" results per authorization context (2026-07-28
 * server/utilities/caching.mdx, "Cache Scope Field": caches MUST NOT be shared across
 * authorization contexts): a `headers` function whose bearer token changes is not served the
 * other token's entries. "public" results are shared. Keys hold a digest, never the token.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { ResultCache } from "../../src/client/result-cache.js";
import { McpServer } from "../../src/server/index.js";
import { authorizationDigest } from "../../src/transports/http/client/authorization-context.js";
import { HttpClientTransport } from "../../src/transports/http/index.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";

const TOKENS: Record<string, string> = { "token-alice": "alice", "token-bob": "bob" };

describe("private cache entries are partitioned by the Authorization header", () => {
  let served: ServedHttp;
  const seen = { reads: 0, lists: 0 };
  let token = "token-alice";
  let client: McpClient;

  before(async () => {
    const mcp = new McpServer({
      serverInfo: { name: "auth-cache", version: "1" },
      caching: { "tools/list": { ttlMs: 60_000, cacheScope: "public" } },
    });
    mcp.tool({ name: "noop" }, () => "ok");
    mcp.resource(
      { uri: "mem://me", name: "me" },
      (uri, context) => {
        seen.reads++;
        return [{ uri, text: String(context.principal) }];
      },
      { cache: { ttlMs: 60_000, cacheScope: "private" } },
    );
    served = await serveHttp(mcp, {
      port: 0,
      authenticate: (request) => {
        if (request.headers.get("mcp-method") === "tools/list") seen.lists++;
        const user = TOKENS[request.headers.get("authorization")?.replace(/^Bearer /, "") ?? ""];
        if (request.method === "POST" && user === undefined)
          return new Response("", { status: 401 });
        return user;
      },
    });
    client = new McpClient({ clientInfo: { name: "c", version: "1" }, era: "modern" });
    await client.connect(
      new HttpClientTransport(served.url, {
        headers: async () => ({ Authorization: `Bearer ${token}` }),
      }),
    );
  });
  after(async () => {
    await client.close();
    await served.close();
  });

  const me = async () => (await client.readResource("mem://me")).contents[0] as { text: string };

  it("a changed token is not served the previous token's private result", async () => {
    token = "token-alice";
    assert.equal((await me()).text, "alice");
    assert.equal((await me()).text, "alice");
    assert.equal(seen.reads, 1, "alice's second read comes from the cache");

    token = "token-bob";
    assert.equal((await me()).text, "bob");
    assert.equal(seen.reads, 2);

    // Each context keeps its own entry.
    token = "token-alice";
    assert.equal((await me()).text, "alice");
    token = "token-bob";
    assert.equal((await me()).text, "bob");
    assert.equal(seen.reads, 2);
  });

  it("public results are shared across tokens", async () => {
    token = "token-alice";
    const first = await client.listTools();
    token = "token-bob";
    const second = await client.listTools();
    assert.deepEqual(second, first);
    assert.equal(seen.lists, 1, "bob is served alice's public tools/list from the cache");
  });
});

describe("the result cache itself", () => {
  it("serves a private entry only to its partition, a public one to all", () => {
    const cache = new ResultCache();
    cache.set(
      "resources/read",
      { uri: "a" },
      { contents: [], ttlMs: 100, cacheScope: "private" },
      "p1",
    );
    assert.ok(cache.get("resources/read", { uri: "a" }, "p1"));
    assert.equal(cache.get("resources/read", { uri: "a" }, "p2"), undefined);
    assert.equal(cache.get("resources/read", { uri: "a" }), undefined);
    // A result without a scope (an older server) is treated as private.
    cache.set("resources/read", { uri: "b" }, { contents: [], ttlMs: 100 }, "p1");
    assert.equal(cache.get("resources/read", { uri: "b" }, "p2"), undefined);
    cache.set("tools/list", {}, { tools: [], ttlMs: 100, cacheScope: "public" }, "p1");
    assert.ok(cache.get("tools/list", {}, "p2"));
    assert.ok(cache.get("tools/list", {}));
    // Invalidation reaches every partition.
    cache.invalidateResource("a");
    assert.equal(cache.get("resources/read", { uri: "a" }, "p1"), undefined);
  });

  it("partitions by a digest of the Authorization value, whatever the header's case", () => {
    const digest = authorizationDigest({ Authorization: "Bearer secret-token-123" });
    assert.equal(typeof digest, "string");
    assert.ok(!digest!.includes("secret"));
    assert.equal(authorizationDigest({ authorization: "Bearer secret-token-123" }), digest);
    assert.notEqual(authorizationDigest({ AUTHORIZATION: "Bearer other" }), digest);
    assert.equal(authorizationDigest({ "X-Other": "Bearer secret-token-123" }), undefined);
    assert.equal(authorizationDigest(undefined), undefined);
  });
});
