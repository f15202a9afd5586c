/**
 * Load: 10,000 requests in flight at once over one stdio channel, and 1,000 concurrent HTTP
 * clients on 127.0.0.1. Every reply must be correct and matched to its own request.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { McpServer } from "../../src/server/index.js";
import { serveHttp } from "../../src/transports/http/node-adapter.js";
import { StdioClientTransport } from "../../src/transports/stdio/client.js";
import { json, post, request } from "../transports/http/http-helpers.js";
import { EXAMPLE_SERVER } from "./raw-stdio.js";

function echoServer(): McpServer {
  const server = new McpServer({ serverInfo: { name: "load", version: "0" }, onError: () => {} });
  server.tool(
    {
      name: "echo",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    },
    (args) => String(args.text),
  );
  return server;
}

describe("load", () => {
  it("carries 10,000 concurrent requests over one stdio channel, each answered correctly", async () => {
    const client = new McpClient({ clientInfo: { name: "load", version: "0" }, era: "modern" });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [EXAMPLE_SERVER] }),
    );
    try {
      const texts = Array.from({ length: 10_000 }, (_, n) => `request ${n} ${"x".repeat(n % 50)}`);
      const replies = await Promise.all(
        texts.map((text) => client.callTool("echo", { text }, { timeoutMs: 120_000 })),
      );
      for (const [n, reply] of replies.entries()) {
        assert.deepEqual(reply.content, [{ type: "text", text: texts[n] }]);
      }
    } finally {
      await client.close();
    }
  });

  it("serves 1,000 concurrent HTTP clients, each on its own connection, with matching replies", async () => {
    const served = await serveHttp(echoServer());
    // fetch's pool has no per-origin connection limit, so 1,000 requests in flight open about
    // 1,000 sockets: the server really holds them all at once.
    try {
      const bodies = Array.from({ length: 1000 }, (_, n) =>
        // Every client uses id 1, as independent clients do; the server must keep them apart.
        request("tools/call", { name: "echo", arguments: { text: `client ${n}` } }, 1),
      );
      const responses = await Promise.all(
        bodies.map(async (body) => {
          const response = await post(served.url, body);
          return { status: response.status, body: await json(response) };
        }),
      );
      for (const [n, { status, body }] of responses.entries()) {
        assert.equal(status, 200, `client ${n}`);
        assert.equal(body.id, 1);
        assert.deepEqual(body.result.content, [{ type: "text", text: `client ${n}` }]);
      }
    } finally {
      await served.close();
    }
  });
});
