/**
 * Mirrored integers must lie within ±(2^53−1) (2026-07-28 server/tools.mdx "x-mcp-header";
 * basic/transports/streamable-http.mdx "Schema Extension"). The client sends no Mcp-Param-*
 * header for one outside that range (the value stays in the body); the server refuses such an
 * argument with -32602, header or no header.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { McpClient } from "../../../src/client/index.js";
import { JsonRpcError } from "../../../src/jsonrpc/errors.js";
import { McpServer } from "../../../src/server/index.js";
import { HttpClientTransport } from "../../../src/transports/http/client/client-transport.js";
import { type ServedHttp, serveHttp } from "../../../src/transports/http/node-adapter.js";
import {
  DISCOVER_RESULT,
  result,
  type ScriptedServer,
  scriptedServer,
  sendJson,
} from "./client-scripted-server.js";
import { mcpHeaders, type Wire } from "./http-helpers.js";

const SAFE = Number.MAX_SAFE_INTEGER; // 2^53 − 1
const inputSchema = {
  type: "object",
  properties: {
    count: { type: "integer", "x-mcp-header": "Count" },
    region: { type: "string", "x-mcp-header": "Region" },
  },
};

describe("client: integers outside ±(2^53−1) are not mirrored", () => {
  let server: ScriptedServer;
  let client: McpClient;
  before(async () => {
    server = await scriptedServer((request, res) => {
      const method = request.json?.method;
      if (method === "server/discover") return sendJson(res, 200, result(request, DISCOVER_RESULT));
      if (method === "tools/list") {
        return sendJson(res, 200, result(request, { tools: [{ name: "count", inputSchema }] }));
      }
      return sendJson(res, 200, result(request, { content: [{ type: "text", text: "ok" }] }));
    });
    client = new McpClient({ clientInfo: { name: "c", version: "1" } });
    await client.connect(new HttpClientTransport(server.url, { flavourCache: new Map() }));
    await client.listTools();
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  const lastCall = () => server.requests.filter((r) => r.json?.method === "tools/call").at(-1)!;

  for (const [label, count] of [
    ["2^53", 2 ** 53],
    ["-(2^53)", -(2 ** 53)],
    ["1e21", 1e21],
  ] as const) {
    it(`${label}: no Mcp-Param-Count header, the value in the body only`, async () => {
      await client.callTool("count", { count, region: "eu" });
      const call = lastCall();
      assert.equal(call.headers["mcp-param-count"], undefined);
      // Other annotated arguments are still mirrored.
      assert.equal(call.headers["mcp-param-region"], "eu");
      const params = call.json!.params as { arguments: { count: number } };
      assert.equal(params.arguments.count, count);
    });
  }

  for (const count of [SAFE, -SAFE, 0]) {
    it(`${count}: mirrored as its decimal form`, async () => {
      await client.callTool("count", { count });
      assert.equal(lastCall().headers["mcp-param-count"], String(count));
    });
  }
});

describe("server: an annotated integer outside ±(2^53−1) is refused", () => {
  let served: ServedHttp;
  let runs = 0;
  before(async () => {
    const mcp = new McpServer({ serverInfo: { name: "s", version: "1" }, onError: () => {} });
    mcp.tool({ name: "count", inputSchema }, (args) => {
      runs++;
      return String(args.count);
    });
    served = await serveHttp(mcp, { port: 0 });
  });
  after(() => served.close());

  /** `count` written into the body as literal JSON text (so 2^53 + 1 arrives as written). */
  async function call(countJson: string, header: string | undefined): Promise<[number, Wire]> {
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "count",
        arguments: { count: 0 },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    };
    const headers = mcpHeaders(body);
    if (header !== undefined) headers["Mcp-Param-Count"] = header;
    const text = JSON.stringify(body).replace('"count":0', `"count":${countJson}`);
    const response = await fetch(served.url, { method: "POST", headers, body: text });
    return [response.status, await response.json()];
  }

  for (const [label, countJson, header] of [
    ["2^53 without a header (what a conforming client sends)", "9007199254740992", undefined],
    ["2^53 + 1 with a header that matches it as a double", "9007199254740993", "9007199254740993"],
    ["-(2^53) with a header", "-9007199254740992", "-9007199254740992"],
  ] as const) {
    it(label, async () => {
      const before = runs;
      const [status, reply] = await call(countJson, header);
      assert.equal(status, 400);
      assert.equal(reply.error?.code, -32602, JSON.stringify(reply));
      assert.match(reply.error.message, /argument count \(mirrored in Mcp-Param-Count\)/);
      assert.equal(runs, before, "the handler must not run");
    });
  }

  it("the safe range's ends still pass", async () => {
    const [status, reply] = await call(String(SAFE), String(SAFE));
    assert.equal(status, 200);
    assert.equal(reply.result?.content?.[0]?.text, String(SAFE));
  });

  it("an McpClient gets the -32602 for an unsafe integer (no header, no retry loop)", async () => {
    const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era: "modern" });
    await client.connect(new HttpClientTransport(served.url));
    try {
      await client.listTools();
      await assert.rejects(client.callTool("count", { count: 2 ** 53 }), (error: unknown) => {
        assert.ok(error instanceof JsonRpcError);
        assert.equal(error.code, -32602);
        return true;
      });
    } finally {
      await client.close();
    }
  });
});
