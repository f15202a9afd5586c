/**
 * CallOptions.origin over legacy Streamable HTTP: a server's question that arrives on a call's
 * POST stream reaches the client's handler with that call's origin, for concurrent calls alike,
 * and a question after the call has ended names no origin (the request is no longer open).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { McpServer } from "../../src/server/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { serveHttp } from "../../src/transports/http/node-adapter.js";

describe("CallOptions.origin", () => {
  it("names the call a server question belongs to, for concurrent calls over HTTP", async () => {
    const server = new McpServer({
      serverInfo: { name: "asker", version: "1" },
      eras: "legacy",
      onError: () => {},
    });
    server.tool(
      { name: "ask", inputSchema: { type: "object", properties: { who: { type: "string" } } } },
      async (args, context) => {
        const answer = await context.elicit({
          message: `who is ${String(args.who)}?`,
          requestedSchema: { type: "object", properties: { seen: { type: "string" } } },
        });
        return JSON.stringify(answer.content);
      },
    );
    const served = await serveHttp(server);
    const seen: Array<{ message: unknown; origin: unknown }> = [];
    const client = new McpClient({
      clientInfo: { name: "origin-test", version: "1" },
      era: "legacy",
      capabilities: { elicitation: {} },
      handlers: {
        elicitation: async (params: JsonObject, context) => {
          seen.push({ message: params.message, origin: context.origin });
          return { action: "accept", content: { seen: String(context.origin) } };
        },
      },
    });
    try {
      await client.connect(new HttpClientTransport(served.url));
      const [first, second] = await Promise.all([
        client.callTool("ask", { who: "a" }, { origin: "call-a" }),
        client.callTool("ask", { who: "b" }, { origin: "call-b" }),
      ]);
      assert.equal(JSON.parse((first.content[0] as { text: string }).text).seen, "call-a");
      assert.equal(JSON.parse((second.content[0] as { text: string }).text).seen, "call-b");
      assert.deepEqual(seen.map((entry) => `${entry.message} ${entry.origin}`).sort(), [
        "who is a? call-a",
        "who is b? call-b",
      ]);
      // Without an origin the handler is told none.
      const plain = await client.callTool("ask", { who: "c" });
      assert.equal(JSON.parse((plain.content[0] as { text: string }).text).seen, "undefined");
    } finally {
      await client.close();
      await served.close();
    }
  });
});
