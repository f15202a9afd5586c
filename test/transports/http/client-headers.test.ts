import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { McpClient } from "../../../src/client/index.js";
import { JsonRpcError } from "../../../src/jsonrpc/errors.js";
import { encodeHeaderValue } from "../../../src/protocol/http-headers.js";
import { HttpClientTransport } from "../../../src/transports/http/client/client-transport.js";
import { checkToolHeaders } from "../../../src/transports/http/client/mcp-headers-out.js";
import {
  type Captured,
  DISCOVER_RESULT,
  result,
  rpcError,
  type ScriptedServer,
  scriptedServer,
  sendJson,
} from "./client-scripted-server.js";

const clientInfo = { name: "header-test", version: "1.0.0" };

const annotated = (properties: Record<string, unknown>) => ({
  type: "object",
  properties,
});

const VALID_TOOL = {
  name: "valid_tool",
  inputSchema: annotated({
    region: { type: "string", "x-mcp-header": "Region" },
    count: { type: "integer", "x-mcp-header": "Count" },
    dry: { type: "boolean", "x-mcp-header": "Dry-Run" },
    note: { type: "string", "x-mcp-header": "Note" },
    nested: {
      type: "object",
      properties: { tenant: { type: "string", "x-mcp-header": "Tenant" } },
    },
    query: { type: "string" },
  }),
};

const INVALID_TOOLS = [
  { name: "empty", inputSchema: annotated({ a: { type: "string", "x-mcp-header": "" } }) },
  { name: "on_object", inputSchema: annotated({ a: { type: "object", "x-mcp-header": "A" } }) },
  { name: "on_array", inputSchema: annotated({ a: { type: "array", "x-mcp-header": "A" } }) },
  { name: "on_null", inputSchema: annotated({ a: { type: "null", "x-mcp-header": "A" } }) },
  { name: "on_number", inputSchema: annotated({ a: { type: "number", "x-mcp-header": "A" } }) },
  { name: "untyped", inputSchema: annotated({ a: { "x-mcp-header": "A" } }) },
  {
    name: "duplicate",
    inputSchema: annotated({
      a: { type: "string", "x-mcp-header": "Region" },
      b: { type: "string", "x-mcp-header": "region" },
    }),
  },
  { name: "space", inputSchema: annotated({ a: { type: "string", "x-mcp-header": "My Hdr" } }) },
  { name: "colon", inputSchema: annotated({ a: { type: "string", "x-mcp-header": "A:B" } }) },
  { name: "non_ascii", inputSchema: annotated({ a: { type: "string", "x-mcp-header": "Rég" } }) },
  { name: "control", inputSchema: annotated({ a: { type: "string", "x-mcp-header": "A\nB" } }) },
  {
    name: "under_items",
    inputSchema: annotated({
      a: { type: "array", items: { type: "string", "x-mcp-header": "Item" } },
    }),
  },
  {
    name: "under_oneof",
    inputSchema: {
      type: "object",
      oneOf: [annotated({ a: { type: "string", "x-mcp-header": "A" } })],
    },
  },
];

/** A modern server: tools from `tools()`, calls answered unless `onCall` says otherwise. */
function modernScript(options: {
  tools: () => unknown[];
  onCall?: (request: Captured) => unknown | undefined;
}) {
  return (request: Captured, res: import("node:http").ServerResponse) => {
    const method = request.json?.method;
    if (method === "server/discover") return sendJson(res, 200, result(request, DISCOVER_RESULT));
    if (method === "tools/list")
      return sendJson(res, 200, result(request, { tools: options.tools() }));
    const custom = options.onCall?.(request);
    if (custom !== undefined) return sendJson(res, 400, custom);
    if (method === "tools/call") {
      return sendJson(res, 200, result(request, { content: [{ type: "text", text: "ok" }] }));
    }
    if (method === "resources/read") {
      return sendJson(res, 200, result(request, { contents: [{ uri: "x", text: "t" }] }));
    }
    if (method === "prompts/get") return sendJson(res, 200, result(request, { messages: [] }));
    return sendJson(res, 404, rpcError(request, -32601, "Method not found"));
  };
}

describe("value encoding", () => {
  it("sends safe ASCII plain and everything else as the base64 sentinel (spec table)", () => {
    assert.equal(encodeHeaderValue("us-west1"), "us-west1");
    assert.equal(encodeHeaderValue("a b"), "a b");
    assert.equal(encodeHeaderValue("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
    assert.equal(encodeHeaderValue(" padded "), "=?base64?IHBhZGRlZCA=?=");
    assert.equal(encodeHeaderValue("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
    assert.equal(encodeHeaderValue("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
    assert.equal(
      encodeHeaderValue("tab\there"),
      `=?base64?${Buffer.from("tab\there").toString("base64")}?=`,
    );
    assert.equal(encodeHeaderValue(""), "=?base64??=");
  });

  it("accepts valid annotations, rejects each invalid kind", () => {
    assert.ok(checkToolHeaders(VALID_TOOL.inputSchema).ok);
    for (const tool of INVALID_TOOLS) {
      const check = checkToolHeaders(tool.inputSchema);
      assert.equal(check.ok, false, tool.name);
    }
    // A property merely *named* x-mcp-header is not an annotation.
    assert.ok(checkToolHeaders(annotated({ "x-mcp-header": { type: "string" } })).ok);
  });
});

describe("modern request headers on the wire", () => {
  let server: ScriptedServer;
  let client: McpClient;
  const warnings: string[] = [];

  before(async () => {
    server = await scriptedServer(modernScript({ tools: () => [VALID_TOOL, ...INVALID_TOOLS] }));
    client = new McpClient({ clientInfo });
    await client.connect(
      new HttpClientTransport(server.url, {
        onWarning: (message) => warnings.push(message),
        flavourCache: new Map(),
      }),
    );
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  const last = (method: string) => {
    const found = server.requests.filter((request) => request.json?.method === method).at(-1);
    assert.ok(found, `no ${method} request`);
    return found;
  };

  it("every POST carries Accept, Content-Type, MCP-Protocol-Version = _meta and Mcp-Method", () => {
    const probe = last("server/discover");
    assert.equal(probe.method, "POST");
    assert.equal(probe.headers.accept, "application/json, text/event-stream");
    assert.equal(probe.headers["content-type"], "application/json");
    assert.equal(probe.headers["mcp-protocol-version"], "2026-07-28");
    const meta = (probe.json!.params as Record<string, Record<string, unknown>>)._meta;
    assert.equal(meta?.["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    assert.equal(probe.headers["mcp-method"], "server/discover");
    assert.equal(probe.headers["mcp-name"], undefined);
  });

  it("drops tools with invalid annotations from tools/list, with a warning each", async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ["valid_tool"],
    );
    for (const tool of INVALID_TOOLS) {
      assert.ok(
        warnings.some((warning) => warning.includes(`"${tool.name}"`)),
        `no warning for ${tool.name}`,
      );
    }
    assert.equal(last("tools/list").headers["mcp-method"], "tools/list");
  });

  it("mirrors annotated arguments: strings, integers, numbers, booleans, nested; null/absent omitted", async () => {
    await client.callTool("valid_tool", {
      region: "us-west1",
      count: 42,
      dry: false,
      note: null,
      nested: { tenant: "Zürich" },
      query: "SELECT 1",
    });
    const call = last("tools/call");
    assert.equal(call.headers["mcp-method"], "tools/call");
    assert.equal(call.headers["mcp-name"], "valid_tool");
    assert.equal(call.headers["mcp-param-region"], "us-west1");
    assert.equal(call.headers["mcp-param-count"], "42");
    assert.equal(call.headers["mcp-param-dry-run"], "false");
    assert.equal(call.headers["mcp-param-note"], undefined);
    assert.equal(
      call.headers["mcp-param-tenant"],
      `=?base64?${Buffer.from("Zürich").toString("base64")}?=`,
    );
    const params = Object.keys(call.headers).filter((name) => name.startsWith("mcp-param-"));
    assert.deepEqual(params.sort(), [
      "mcp-param-count",
      "mcp-param-dry-run",
      "mcp-param-region",
      "mcp-param-tenant",
    ]);

    await client.callTool("valid_tool", { dry: true, region: " padded ", count: -7 });
    const second = last("tools/call");
    assert.equal(second.headers["mcp-param-dry-run"], "true");
    assert.equal(second.headers["mcp-param-region"], "=?base64?IHBhZGRlZCA=?=");
    assert.equal(second.headers["mcp-param-count"], "-7");
    assert.equal(second.headers["mcp-param-tenant"], undefined);
  });

  it("never adds Mcp-Param headers for an unannotated tool", async () => {
    await client.callTool("unknown_tool", { region: "x", a: 1 });
    const call = last("tools/call");
    assert.equal(call.headers["mcp-name"], "unknown_tool");
    assert.deepEqual(
      Object.keys(call.headers).filter((name) => name.startsWith("mcp-param-")),
      [],
    );
  });

  it("Mcp-Name carries params.uri for resources/read and params.name for prompts/get, sentinel when needed", async () => {
    await client.readResource("file:///projects/myapp/config.json");
    assert.equal(last("resources/read").headers["mcp-name"], "file:///projects/myapp/config.json");
    await client.readResource("file:///ünï code");
    assert.equal(
      last("resources/read").headers["mcp-name"],
      `=?base64?${Buffer.from("file:///ünï code").toString("base64")}?=`,
    );
    await client.getPrompt("greet");
    assert.equal(last("prompts/get").headers["mcp-method"], "prompts/get");
    assert.equal(last("prompts/get").headers["mcp-name"], "greet");
    await client.getPrompt("=?base64?abc?=");
    assert.equal(
      last("prompts/get").headers["mcp-name"],
      `=?base64?${Buffer.from("=?base64?abc?=").toString("base64")}?=`,
    );
    await client.callTool("Tool.With-Case");
    assert.equal(last("tools/call").headers["mcp-name"], "Tool.With-Case");
  });
});

describe("HeaderMismatch", () => {
  it("re-lists tools once and retries the call with the new headers", async () => {
    let schemaVersion = 1;
    const tools = () => [
      {
        name: "sql",
        inputSchema: annotated({
          region: { type: "string", "x-mcp-header": schemaVersion === 1 ? "Region" : "Zone" },
        }),
      },
    ];
    const server = await scriptedServer(
      modernScript({
        tools,
        onCall: (request) =>
          request.json?.method === "tools/call" && request.headers["mcp-param-zone"] !== "eu"
            ? rpcError(request, -32020, "Header mismatch: Mcp-Param-Zone missing")
            : undefined,
      }),
    );
    const client = new McpClient({ clientInfo });
    try {
      await client.connect(new HttpClientTransport(server.url, { flavourCache: new Map() }));
      await client.listTools();
      schemaVersion = 2; // the server changed the tool after we listed it
      const outcome = await client.callTool("sql", { region: "eu" });
      assert.deepEqual(outcome.content, [{ type: "text", text: "ok" }]);
      assert.deepEqual(server.methods(), [
        "server/discover",
        "tools/list",
        "tools/call",
        "tools/list",
        "tools/call",
      ]);
      const relist = server.requests[3]!;
      assert.equal(relist.headers["mcp-protocol-version"], "2026-07-28");
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("surfaces the error when the retry mismatches too (one retry only)", async () => {
    const server = await scriptedServer(
      modernScript({
        tools: () => [],
        onCall: (request) =>
          request.json?.method === "tools/call"
            ? rpcError(request, -32020, "Header mismatch")
            : undefined,
      }),
    );
    const client = new McpClient({ clientInfo });
    try {
      await client.connect(new HttpClientTransport(server.url, { flavourCache: new Map() }));
      await assert.rejects(client.callTool("t", {}), (error: unknown) => {
        assert.ok(error instanceof JsonRpcError);
        assert.equal(error.code, -32020);
        return true;
      });
      assert.deepEqual(server.methods(), [
        "server/discover",
        "tools/call",
        "tools/list",
        "tools/call",
      ]);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
