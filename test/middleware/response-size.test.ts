/**
 * responseSize(): tool results over the limit are refused (a tool error naming both sizes) or
 * truncated (content kept in order, a text cut on a character boundary, a note), structured
 * content always refused; input-required rounds pass; both eras, and over HTTP.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { responseSize } from "../../src/middleware/index.js";
import { McpServer } from "../../src/server/index.js";
import { serveHttp } from "../../src/transports/http/node-adapter.js";
import { memoryClient } from "./memory-client.js";

const big = "é".repeat(3000); // 6000 bytes of UTF-8, 3000 characters

function sizedServer(mode: "refuse" | "truncate"): McpServer {
  const server = new McpServer({ serverInfo: { name: "sized", version: "1" }, onError: () => {} });
  server.use("tools/call", responseSize({ maxBytes: 2000, mode }));
  server.tool({ name: "small" }, () => "fits");
  server.tool({ name: "big" }, () => ({
    content: [
      { type: "text", text: "first" },
      { type: "text", text: `😀${big}` },
      { type: "text", text: "never reached" },
    ],
  }));
  server.tool(
    {
      name: "structured",
      outputSchema: { type: "object", properties: { text: { type: "string" } } },
    },
    () => ({ content: [{ type: "text", text: big }], structuredContent: { text: big } }),
  );
  server.tool({ name: "asks" }, async (_args, context) => {
    const answer = await context.elicit({
      message: "x".repeat(5000),
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    });
    return `hello ${(answer.content as JsonObject).name}`;
  });
  return server;
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const texts = (result: { content: unknown[] }) =>
  result.content.map((item) => (item as { text: string }).text);

for (const era of ["modern", "legacy"] as const) {
  describe(`responseSize, era ${era}`, () => {
    it("refuses a result over the limit with a tool error naming both sizes", async () => {
      const client = await memoryClient(sizedServer("refuse"), era);
      assert.deepEqual(texts(await client.callTool("small", {})), ["fits"]);
      const refused = await client.callTool("big", {});
      assert.equal(refused.isError, true);
      assert.match(
        texts(refused)[0] ?? "",
        /too large to return: \d+ bytes, over this server's limit of 2000/,
      );
      // An input-required round is not a tool result: the question goes through.
      assert.deepEqual(texts(await client.callTool("asks", {})), ["hello Ada"]);
      await client.close();
    });

    it("truncates within the limit, on a character boundary, and says so", async () => {
      const client = await memoryClient(sizedServer("truncate"), era);
      const cut = await client.callTool("big", {});
      const [first, partial, note, ...rest] = texts(cut);
      assert.equal(first, "first");
      assert.ok(partial?.startsWith("😀é") && partial.length < big.length);
      assert.ok(/^😀é+$/u.test(partial ?? ""), "the text was cut inside a character");
      assert.match(
        note ?? "",
        /^\[truncated: the full result was \d+ bytes, over this server's limit of 2000\]$/,
      );
      assert.deepEqual(rest, []);
      assert.ok(bytes(cut) <= 2000 + 400, `truncated result is ${bytes(cut)} bytes`);
      assert.equal(cut.isError, undefined);
      const structured = await client.callTool("structured", {});
      assert.equal(structured.isError, true);
      await client.close();
    });
  });
}

describe("responseSize over HTTP", () => {
  it("keeps the reply on the wire within the limit plus mcpwire's own fields", async () => {
    const served = await serveHttp(sizedServer("truncate"));
    try {
      const response = await fetch(served.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "big",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "big",
            arguments: {},
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          },
        }),
      });
      const body = await response.text();
      assert.equal(response.status, 200, body);
      assert.ok(Buffer.byteLength(body) < 2600, `reply of ${Buffer.byteLength(body)} bytes`);
      assert.match(body, /truncated: the full result was/);
    } finally {
      await served.close();
    }
  });

  it("refuses nonsense options", () => {
    assert.throws(() => responseSize({ maxBytes: 10 }), /at least/);
    assert.throws(() => responseSize({ maxBytes: 5000, mode: "drop" as "refuse" }), /mode/);
  });
});
