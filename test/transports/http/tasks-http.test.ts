/**
 * The tasks extension over Streamable HTTP: Mcp-Name carries the taskId, tasks are bound to
 * the authenticated principal, and the official SDK client (which knows nothing of tasks)
 * still gets plain results from a task-capable server.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { encodeHeaderValue } from "../../../src/protocol/http-headers.js";
import { McpServer } from "../../../src/server/index.js";
import { TASKS_EXTENSION } from "../../../src/server/tasks/wire.js";
import { type ServedHttp, serveHttp } from "../../../src/transports/http/node-adapter.js";

const VERSION = "2026-07-28";

function build(): McpServer {
  const server = new McpServer({
    serverInfo: { name: "tasks-http", version: "1" },
    onError: () => {},
  });
  server.tool({ name: "opt", inputSchema: { type: "object" } }, () => "done", {
    task: { support: "optional" },
  });
  return server;
}

async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown>,
  options: { token?: string; name?: string | null; capabilities?: object } = {},
) {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": options.capabilities ?? {
          extensions: { [TASKS_EXTENSION]: {} },
        },
      },
    },
  };
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": VERSION,
    "Mcp-Method": method,
  };
  const name =
    options.name !== undefined ? options.name : ((params.taskId ?? params.name) as string);
  if (name !== null) headers["Mcp-Name"] = encodeHeaderValue(name);
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await response.text();
  const json = text.startsWith("{") ? JSON.parse(text) : JSON.parse(text.split("data: ").pop()!);
  return {
    status: response.status,
    body: json as { result?: Record<string, unknown>; error?: { code: number } },
  };
}

describe("tasks over Streamable HTTP", () => {
  let served: ServedHttp;
  before(async () => {
    served = await serveHttp(build(), {
      authenticate: (request) => {
        const auth = request.headers.get("authorization");
        return auth ? { sub: auth.slice("Bearer ".length) } : new Response(null, { status: 401 });
      },
    });
  });
  after(() => served.close());

  it("binds a task to its principal: another one gets -32602, as for an unknown id", async () => {
    const created = await rpc(served.url, "tools/call", { name: "opt" }, { token: "alice" });
    const taskId = created.body.result?.taskId as string;
    assert.equal(created.body.result?.resultType, "task");
    const own = await rpc(served.url, "tasks/get", { taskId }, { token: "alice" });
    assert.equal(own.body.result?.taskId, taskId);
    for (const method of ["tasks/get", "tasks/cancel", "tasks/update"]) {
      const other = await rpc(
        served.url,
        method,
        { taskId, inputResponses: {} },
        { token: "mallory" },
      );
      assert.equal(other.body.error?.code, -32602, method);
    }
    const unknown = await rpc(served.url, "tasks/get", { taskId: "nope" }, { token: "mallory" });
    assert.deepEqual(
      { code: unknown.body.error?.code },
      { code: -32602 },
      "someone else's task and no task answer alike",
    );
    const still = await rpc(served.url, "tasks/get", { taskId }, { token: "alice" });
    assert.notEqual(still.body.result?.status, "cancelled", "mallory's cancel did nothing");
  });

  it("checks Mcp-Name against params.taskId on tasks/* (400, -32020)", async () => {
    const created = await rpc(served.url, "tools/call", { name: "opt" }, { token: "alice" });
    const taskId = created.body.result?.taskId as string;
    const wrong = await rpc(served.url, "tasks/get", { taskId }, { token: "alice", name: "other" });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error?.code, -32020);
    const missing = await rpc(served.url, "tasks/get", { taskId }, { token: "alice", name: null });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error?.code, -32020);
  });
});

describe("official SDK client against a task-capable server", () => {
  let served: ServedHttp;
  let client: Client;
  before(async () => {
    served = await serveHttp(build());
    client = new Client(
      { name: "sdk", version: "1" },
      { versionNegotiation: { mode: { pin: VERSION } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  });
  after(async () => {
    await client.close();
    await served.close();
  });

  it("gets the plain result (it never declared the extension)", async () => {
    const result = await client.callTool({ name: "opt", arguments: {} });
    assert.deepEqual(result.content, [{ type: "text", text: "done" }]);
    assert.equal((result as { taskId?: unknown }).taskId, undefined);
  });
});
