/**
 * The web handler's reply sink: a reply written within the dispatching turn is handed back as
 * the Response itself (no promise to make and unwrap); one written later settles the promise
 * `result()` gave. Then the same through the handler: a plain-value tool and an async one.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpServer } from "../../../src/server/index.js";
import { WebReplySink } from "../../../src/transports/http/exchange.js";
import { createHttpHandler } from "../../../src/transports/http/server.js";

const REPLY = { status: 200, headers: [["content-type", "application/json"]] as const, body: "{}" };

describe("WebReplySink", () => {
  it("hands back the Response itself when the reply came first", async () => {
    const sink = new WebReplySink();
    sink.reply({ ...REPLY, headers: [...REPLY.headers] });
    const result = sink.result();
    assert.ok(result instanceof Response, "a Response, not a promise");
    assert.equal(await result.text(), "{}");
  });

  it("gives a promise that the later reply settles", async () => {
    const sink = new WebReplySink();
    const result = sink.result();
    assert.ok(result instanceof Promise);
    sink.reply({ ...REPLY, headers: [...REPLY.headers] });
    const response = await result;
    assert.equal(response.status, 200);
    assert.equal(await response.text(), "{}");
  });

  it("keeps the first answer when abandoned afterwards", async () => {
    const sink = new WebReplySink();
    sink.reply({ ...REPLY, headers: [...REPLY.headers] });
    sink.abandon();
    const result = sink.result();
    assert.ok(result instanceof Response);
    assert.equal(result.status, 200);
  });
});

describe("web handler: plain-value and async tools", () => {
  const server = new McpServer({ serverInfo: { name: "sink", version: "1" }, eras: "modern" });
  server.tool({ name: "now", inputSchema: { type: "object" } }, () => ({
    content: [{ type: "text", text: "plain" }],
  }));
  server.tool({ name: "later", inputSchema: { type: "object" } }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { content: [{ type: "text", text: "async" }] };
  });
  const web = createHttpHandler(server, { legacy: false, responseMode: "json" });

  const call = (name: string) =>
    web.handle(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": name,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: {
            name,
            arguments: {},
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          },
        }),
      }),
    );

  for (const [name, text] of [
    ["now", "plain"],
    ["later", "async"],
  ] as const) {
    it(`answers the ${text} tool with its result`, async () => {
      const response = await call(name);
      assert.equal(response.status, 200);
      const body = (await response.json()) as { id: number; result: { content: unknown } };
      assert.equal(body.id, 7);
      assert.deepEqual(body.result.content, [{ type: "text", text }]);
    });
  }
});
