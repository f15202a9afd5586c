/**
 * A peer's clientInfo / serverInfo is read, not cast: a hostile or sloppy peer's value that is
 * not an Implementation (no string name and version, a non-list `icons`, a numeric title) does
 * not reach handlers or the client's `serverInfo` as one.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import type { JsonObject, JsonRpcMessage } from "../../src/jsonrpc/types.js";
import { readImplementation } from "../../src/protocol/implementation.js";
import { META } from "../../src/protocol/meta.js";
import type { Transport } from "../../src/protocol/transport.js";
import { McpServer } from "../../src/server/index.js";
import { createMemoryPair } from "../../src/transports/memory.js";

describe("readImplementation", () => {
  it("keeps a well-formed value as it is", () => {
    const info = { name: "n", version: "1", title: "T", icons: [{ src: "https://x/i.png" }] };
    assert.equal(readImplementation(info), info);
  });

  it("refuses a value without a string name and version", () => {
    assert.equal(readImplementation({ name: { toString: "x" }, version: "1" }), undefined);
    assert.equal(readImplementation({ name: "n" }), undefined);
    assert.equal(readImplementation(["n", "1"]), undefined);
    assert.equal(readImplementation("n@1"), undefined);
  });

  it("drops optional fields of the wrong type", () => {
    const read = readImplementation({
      name: "n",
      version: "1",
      title: 7,
      websiteUrl: "https://example.com",
      icons: [{ src: "https://x/a.png" }, { src: 3 }, null],
      extra: "kept",
    });
    assert.deepEqual(read, {
      name: "n",
      version: "1",
      websiteUrl: "https://example.com",
      icons: [{ src: "https://x/a.png" }],
      extra: "kept",
    });
    assert.deepEqual(readImplementation({ name: "n", version: "1", icons: "x" }), {
      name: "n",
      version: "1",
    });
  });
});

/** Sends raw messages to a real server over memory and returns each reply. */
function rawClient(server: McpServer) {
  const [serverSide, clientSide] = createMemoryPair();
  server.connect(serverSide);
  const waiting = new Map<unknown, (message: JsonObject) => void>();
  clientSide.start({
    message(message) {
      const reply = message as unknown as JsonObject;
      waiting.get(reply.id)?.(reply);
    },
  });
  return {
    ask(message: JsonObject): Promise<JsonObject> {
      return new Promise((resolve) => {
        waiting.set(message.id, resolve);
        void clientSide.send({ jsonrpc: "2.0", ...message } as unknown as JsonRpcMessage);
      });
    },
    close: () => clientSide.close(),
  };
}

function serverReportingClientInfo(): McpServer {
  const server = new McpServer({ serverInfo: { name: "s", version: "1" } });
  server.tool({ name: "who" }, (_args, ctx) => JSON.stringify(ctx.clientInfo ?? null));
  return server;
}

function reportedInfo(reply: JsonObject): unknown {
  const result = reply.result as { content: { text: string }[] };
  return JSON.parse(result.content[0]?.text ?? "");
}

describe("the server reads the client's clientInfo", () => {
  it("legacy: an initialize clientInfo without a string name reaches handlers as undefined", async () => {
    const client = rawClient(serverReportingClientInfo());
    await client.ask({
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: 42, version: "1" },
      },
    });
    const reply = await client.ask({ id: 2, method: "tools/call", params: { name: "who" } });
    assert.equal(reportedInfo(reply), null);
    await client.close();
  });

  it("modern: a _meta clientInfo with a bad title reaches handlers without it", async () => {
    const client = rawClient(serverReportingClientInfo());
    const reply = await client.ask({
      id: 1,
      method: "tools/call",
      params: {
        name: "who",
        _meta: {
          [META.protocolVersion]: "2026-07-28",
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name: "c", version: "1", title: { html: "<b>" } },
        },
      },
    });
    assert.deepEqual(reportedInfo(reply), { name: "c", version: "1" });
    await client.close();
  });
});

/** A fake server answering discover or initialize with `serverInfo`. */
function fakeServer(era: "modern" | "legacy", serverInfo: unknown): Transport {
  const [serverSide, clientSide] = createMemoryPair();
  serverSide.start({
    message(message) {
      const request = message as unknown as JsonObject;
      if (request.id === undefined) return;
      let result: JsonObject | undefined;
      if (request.method === "server/discover" && era === "modern") {
        result = {
          supportedVersions: ["2026-07-28"],
          capabilities: {},
          _meta: { [META.serverInfo]: serverInfo } as JsonObject,
        };
      } else if (request.method === "initialize" && era === "legacy") {
        result = { protocolVersion: "2025-11-25", capabilities: {}, serverInfo } as JsonObject;
      }
      const reply = result
        ? { jsonrpc: "2.0", id: request.id, result }
        : { jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "no" } };
      void serverSide.send(reply as unknown as JsonRpcMessage);
    },
  });
  return clientSide;
}

describe("the client reads the server's serverInfo", () => {
  for (const era of ["modern", "legacy"] as const) {
    it(`${era}: a serverInfo whose version is a number is not taken for one`, async () => {
      const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era });
      await client.connect(fakeServer(era, { name: "s", version: 2 }));
      assert.equal(client.serverInfo, undefined);
      await client.close();
    });
  }
});
