/**
 * Caching hints are checked when the server is built or a resource registered (2026-07-28
 * server/utilities/caching.mdx: ttlMs an integer >= 0, cacheScope "public" | "private"; every
 * page of a list carries the same cacheScope).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { Session } from "../../src/protocol/session.js";
import { McpServer, type McpServerOptions } from "../../src/server/index.js";
import { tcpConnector } from "../helpers/connectors.js";

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
};

function build(caching: unknown): McpServer {
  return new McpServer({
    serverInfo: { name: "cache", version: "1" },
    caching: caching as McpServerOptions["caching"],
  });
}

describe("caching hints given to McpServer", () => {
  for (const [label, ttlMs, pattern] of [
    ["negative", -1, /caching\["tools\/list"\]: ttlMs must be a non-negative integer.*-1/],
    ["fractional", 1.5, /caching\["tools\/list"\]: ttlMs .*1\.5/],
    ["a string", "60000", /caching\["tools\/list"\]: ttlMs .*"60000"/],
    ["infinite", Number.POSITIVE_INFINITY, /ttlMs .*Infinity/],
    ["missing", undefined, /ttlMs .*got nothing/],
  ] as const) {
    it(`refuse a ttlMs that is ${label}`, () => {
      assert.throws(() => build({ "tools/list": { ttlMs, cacheScope: "public" } }), pattern);
    });
  }

  it("refuse a cacheScope outside the schema's enum, or none", () => {
    assert.throws(
      () => build({ "resources/read": { ttlMs: 10, cacheScope: "shared" } }),
      /caching\["resources\/read"\]: cacheScope must be "public" or "private", got "shared"/,
    );
    assert.throws(
      () => build({ "prompts/list": { ttlMs: 10 } }),
      /caching\["prompts\/list"\]: cacheScope .*got nothing/,
    );
  });

  it("refuse a method that has no caching hints (a typo would otherwise be ignored)", () => {
    assert.throws(
      () => build({ "tools/lists": { ttlMs: 10, cacheScope: "public" } }),
      /caching: "tools\/lists" is not a cacheable method/,
    );
  });

  it("accept valid hints, zero included", () => {
    build({ "tools/list": { ttlMs: 0, cacheScope: "private" }, "server/discover": undefined });
  });
});

describe("caching hints given to a resource or template", () => {
  const server = build(undefined);
  const read = (uri: string) => [{ uri, text: "x" }];

  it("refuse a bad ttlMs, naming the resource", () => {
    assert.throws(
      () =>
        server.resource({ uri: "mem://a", name: "a" }, read, {
          cache: { ttlMs: -5, cacheScope: "public" },
        }),
      /resource "mem:\/\/a": cache: ttlMs must be a non-negative integer.*-5/,
    );
  });

  it("refuse a bad cacheScope, naming the template", () => {
    assert.throws(
      () =>
        server.resourceTemplate({ uriTemplate: "mem://{id}", name: "t" }, read, {
          cache: { ttlMs: 5, cacheScope: "PUBLIC" as "public" },
        }),
      /resource template "mem:\/\/\{id\}": cache: cacheScope must be "public" or "private", got "PUBLIC"/,
    );
  });

  it("register nothing when refused", async () => {
    assert.throws(() =>
      server.resource({ uri: "mem://b", name: "b" }, read, {
        cache: { ttlMs: 1, cacheScope: "nobody" as "public" },
      }),
    );
    assert.equal(server.capabilities("modern").resources, undefined);
  });
});

describe("cacheScope across the pages of a list", () => {
  it("every page of tools/list, resources/list and prompts/list carries the configured scope", async () => {
    const server = new McpServer({
      serverInfo: { name: "pages", version: "1" },
      pageSize: 2,
      caching: {
        "tools/list": { ttlMs: 1000, cacheScope: "private" },
        "resources/list": { ttlMs: 0, cacheScope: "private" },
        "prompts/list": { ttlMs: 50, cacheScope: "public" },
      },
    });
    for (let i = 0; i < 5; i++) {
      server.tool({ name: `t${i}` }, () => "ok");
      server.resource({ uri: `mem://r${i}`, name: `r${i}` }, (uri) => [{ uri, text: "" }]);
      server.prompt({ name: `p${i}` }, () => ({ messages: [] }));
    }
    const { transport, cleanup } = await tcpConnector(server);
    const client = new Session(transport);
    client.start();
    try {
      for (const [method, field, scope, ttlMs] of [
        ["tools/list", "tools", "private", 1000],
        ["resources/list", "resources", "private", 0],
        ["prompts/list", "prompts", "public", 50],
      ] as const) {
        const scopes: unknown[] = [];
        let seen = 0;
        let cursor: unknown;
        do {
          const params: JsonObject = { _meta: meta };
          if (cursor !== undefined) params.cursor = cursor as string;
          const page = await client.request(method, params);
          scopes.push(page.cacheScope);
          assert.equal(page.ttlMs, ttlMs);
          seen += (page[field] as unknown[]).length;
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        assert.equal(seen, 5);
        assert.deepEqual(scopes, [scope, scope, scope], method);
      }
    } finally {
      await client.close();
      await cleanup();
    }
  });
});

describe("caching hints a read handler returns itself", () => {
  it("are completed or corrected from the configured hint, and bad ones reported", async () => {
    const reported: string[] = [];
    const server = new McpServer({
      serverInfo: { name: "handler-hints", version: "1" },
      caching: { "resources/read": { ttlMs: 30, cacheScope: "private" } },
      onError: (error) => reported.push(error.message),
    });
    server.resource({ uri: "mem://own", name: "own" }, (uri) => ({
      contents: [{ uri, text: "" }],
      ttlMs: 5000,
    }));
    server.resource({ uri: "mem://bad", name: "bad" }, (uri) => ({
      contents: [{ uri, text: "" }],
      ttlMs: -3,
      cacheScope: "world",
    }));
    const { transport, cleanup } = await tcpConnector(server);
    const client = new Session(transport);
    client.start();
    try {
      const own = await client.request("resources/read", { uri: "mem://own", _meta: meta });
      assert.equal(own.ttlMs, 5000);
      assert.equal(own.cacheScope, "private");
      assert.deepEqual(reported, []);

      const bad = await client.request("resources/read", { uri: "mem://bad", _meta: meta });
      assert.equal(bad.ttlMs, 30);
      assert.equal(bad.cacheScope, "private");
      assert.equal(reported.length, 2);
      assert.match(reported[0]!, /resources\/read handler returned ttlMs -3/);
      assert.match(reported[1]!, /resources\/read handler returned cacheScope "world"/);
    } finally {
      await client.close();
      await cleanup();
    }
  });
});
