import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NoCommonVersionError } from "../../src/client/era-detection.js";
import { McpClient } from "../../src/client/index.js";
import { JsonRpcError, LocalError } from "../../src/jsonrpc/errors.js";
import type { Era } from "../../src/protocol/versions.js";
import {
  discoverResult,
  errorReply,
  type FakeServer,
  fakePair,
  initializeResult,
  metaOf,
  SERVER_INFO,
} from "./fake-server.js";

const clientInfo = { name: "test-client", version: "0.0.1" };

function legacyServer(server: FakeServer, discoverReply = errorReply(-32601, "Method not found")) {
  return server.on("server/discover", discoverReply).on("initialize", initializeResult());
}

describe("era detection", () => {
  it("a DiscoverResult means modern, with the probe carrying modern _meta", async () => {
    const { transport, server } = fakePair();
    server.on("server/discover", discoverResult());
    const client = new McpClient({ clientInfo, capabilities: { roots: {} } });
    await client.connect(transport);
    assert.equal(client.era, "modern");
    assert.equal(client.protocolVersion, "2026-07-28");
    assert.deepEqual(client.serverInfo, SERVER_INFO);
    assert.deepEqual(client.supportedVersions, ["2026-07-28"]);
    assert.equal(client.instructions, "be nice");
    assert.deepEqual(client.serverCapabilities?.tools, { listChanged: true });
    assert.deepEqual(server.methods(), ["server/discover"]);
    assert.deepEqual(metaOf(server.requests("server/discover")[0]), {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { roots: {} },
      "io.modelcontextprotocol/clientInfo": clientInfo,
    });
    await client.close();
  });

  it("picks the newest common version when the preferred one is not offered", async () => {
    const { transport, server } = fakePair();
    server.on(
      "server/discover",
      discoverResult({ supportedVersions: ["2026-07-28", "2025-11-25"] }),
    );
    const client = new McpClient({ clientInfo, protocolVersion: "2099-01-01" });
    await client.connect(transport);
    assert.equal(client.era, "modern");
    assert.equal(client.protocolVersion, "2026-07-28");
    server.on("tools/list", { result: { tools: [] } });
    await client.listTools();
    const meta = metaOf(server.requests("tools/list")[0]);
    assert.equal(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    await client.close();
  });

  it("-32022 makes it retry with a version from data.supported, never initialize", async () => {
    const { transport, server } = fakePair();
    server.on("server/discover", (request) =>
      metaOf(request)["io.modelcontextprotocol/protocolVersion"] === "2026-07-28"
        ? discoverResult()
        : errorReply(-32022, "Unsupported protocol version", {
            supported: ["2026-07-28", "2025-11-25"],
            requested: "2099-01-01",
          }),
    );
    const client = new McpClient({ clientInfo, protocolVersion: "2099-01-01" });
    await client.connect(transport);
    assert.equal(client.era, "modern");
    assert.equal(client.protocolVersion, "2026-07-28");
    const versions = server
      .requests("server/discover")
      .map((request) => metaOf(request)["io.modelcontextprotocol/protocolVersion"]);
    assert.deepEqual(versions, ["2099-01-01", "2026-07-28"]);
    assert.equal(server.requests("initialize").length, 0);
    await client.close();
  });

  it("-32022 with no version in common fails clearly and does not fall back", async () => {
    const { transport, server } = fakePair();
    server.on(
      "server/discover",
      errorReply(-32022, "Unsupported protocol version", {
        supported: ["2025-11-25", "2030-01-01"],
      }),
    );
    const client = new McpClient({ clientInfo });
    await assert.rejects(client.connect(transport), (error: Error) => {
      assert.ok(error instanceof NoCommonVersionError);
      assert.match(error.message, /supports 2025-11-25, 2030-01-01/);
      return true;
    });
    assert.equal(server.requests("initialize").length, 0);
    assert.equal(client.era, undefined);
    await transport.closed; // the failed connect hung up
  });

  for (const [code, message] of [
    [-32601, "Method not found"],
    [-32602, "Invalid params"],
    [-32600, "Server not initialized"],
  ] as const) {
    it(`a ${code} reply to the probe means legacy: initialize, then initialized`, async () => {
      const { transport, server } = fakePair();
      legacyServer(server, errorReply(code, message));
      const client = new McpClient({ clientInfo, capabilities: { sampling: {} } });
      await client.connect(transport);
      assert.equal(client.era, "legacy");
      await server.waitFor("notifications/initialized");
      assert.equal(client.protocolVersion, "2025-11-25");
      assert.deepEqual(client.serverInfo, SERVER_INFO);
      assert.equal(client.instructions, "legacy instructions");
      assert.deepEqual(server.methods(), [
        "server/discover",
        "initialize",
        "notifications/initialized",
      ]);
      assert.deepEqual(server.requests("initialize")[0]?.params, {
        protocolVersion: "2025-11-25",
        capabilities: { sampling: {} },
        clientInfo,
      });
      await client.close();
    });
  }

  it("silence past probeTimeoutMs means legacy", async () => {
    const { transport, server } = fakePair();
    legacyServer(server, "silence");
    const client = new McpClient({ clientInfo, probeTimeoutMs: 200 });
    const started = Date.now();
    await client.connect(transport);
    assert.ok(Date.now() - started >= 190, "waited for the probe timeout");
    assert.equal(client.era, "legacy");
    assert.deepEqual(
      server.requests().map((request) => request.method),
      ["server/discover", "initialize"],
    );
    await client.close();
  });

  it("a transport closed by the probe is replaced through the factory, then initialize", async () => {
    const servers: FakeServer[] = [];
    const factory = () => {
      const { transport, server } = fakePair();
      legacyServer(server, "close"); // a legacy stdio server that exits on unknown requests
      servers.push(server);
      return transport;
    };
    const client = new McpClient({ clientInfo });
    await client.connect(factory);
    assert.equal(client.era, "legacy");
    assert.equal(servers.length, 2);
    await servers[1]?.waitFor("notifications/initialized");
    assert.deepEqual(servers[0]?.methods(), ["server/discover"]);
    assert.deepEqual(servers[1]?.methods(), ["initialize", "notifications/initialized"]);
    await client.close();
  });

  it("a transport closed by the probe without a factory is a clear local error", async () => {
    const { transport, server } = fakePair();
    legacyServer(server, "close");
    const client = new McpClient({ clientInfo });
    await assert.rejects(client.connect(transport), (error: Error) => {
      assert.ok(error instanceof LocalError);
      assert.equal(error.kind, "closed");
      assert.match(error.message, /factory/);
      return true;
    });
  });

  it("refuses a legacy server that answers initialize with a version it does not speak", async () => {
    const { transport, server } = fakePair();
    server
      .on("server/discover", errorReply(-32601, "nope"))
      .on("initialize", initializeResult("2023-01-01"));
    const client = new McpClient({ clientInfo });
    await assert.rejects(client.connect(transport), /2023-01-01.*does not speak/);
    assert.equal(server.requests("notifications/initialized").length, 0);
    await transport.closed;
  });

  it("era 'legacy' and 'modern' skip the probe", async () => {
    const legacy = fakePair();
    legacyServer(legacy.server);
    const legacyClient = new McpClient({ clientInfo, era: "legacy" });
    await legacyClient.connect(legacy.transport);
    await legacy.server.waitFor("notifications/initialized");
    assert.deepEqual(legacy.server.methods(), ["initialize", "notifications/initialized"]);
    await legacyClient.close();

    const modern = fakePair();
    modern.server.on("server/discover", errorReply(-32601, "Method not found"));
    const modernClient = new McpClient({ clientInfo, era: "modern" });
    // Forced modern never falls back: the error surfaces.
    await assert.rejects(modernClient.connect(modern.transport), JsonRpcError);
    assert.equal(modern.server.requests("initialize").length, 0);
  });

  it("caches the era per serverKey and skips the probe next time", async () => {
    const eraCache = new Map<string, Era>();
    const first = fakePair();
    legacyServer(first.server, "silence");
    const client1 = new McpClient({ clientInfo, eraCache, probeTimeoutMs: 100 });
    await client1.connect(first.transport, { serverKey: "everything" });
    assert.equal(eraCache.get("everything"), "legacy");
    await client1.close();

    const second = fakePair();
    legacyServer(second.server, "silence");
    const client2 = new McpClient({ clientInfo, eraCache, probeTimeoutMs: 100 });
    await client2.connect(second.transport, { serverKey: "everything" });
    assert.equal(client2.era, "legacy");
    await second.server.waitFor("notifications/initialized");
    assert.deepEqual(second.server.methods(), ["initialize", "notifications/initialized"]);
    await client2.close();
  });

  it("re-probes when the cached era turns out wrong", async () => {
    const eraCache = new Map<string, Era>([["srv", "legacy"]]);
    const { transport, server } = fakePair();
    server
      .on("initialize", errorReply(-32602, "missing _meta; this server speaks 2026-07-28"))
      .on("server/discover", discoverResult());
    const client = new McpClient({ clientInfo, eraCache });
    await client.connect(transport, { serverKey: "srv" });
    assert.equal(client.era, "modern");
    assert.equal(eraCache.get("srv"), "modern");
    assert.deepEqual(server.methods(), ["initialize", "server/discover"]);
    await client.close();
  });
});
