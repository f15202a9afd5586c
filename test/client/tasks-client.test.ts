/**
 * McpClient and the tasks extension over real Streamable HTTP: callTool drives a task to its
 * end (polling, answering input through the handlers), cancels it when the caller aborts, and
 * client.tasks sends tasks/* with Mcp-Name = taskId (the server refuses them otherwise).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { TaskCancelledError } from "../../src/client/tasks/client-tasks.js";
import { JsonRpcError, LocalError } from "../../src/jsonrpc/errors.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { McpServer } from "../../src/server/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";

const FORM = {
  mode: "form",
  message: "Name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } } },
};

describe("McpClient with tasks (HTTP)", () => {
  let served: ServedHttp;
  let release: () => void = () => {};
  let handlerAborted: Promise<void>;
  before(async () => {
    const server = new McpServer({ serverInfo: { name: "t", version: "1" }, onError: () => {} });
    const task = { support: "optional", pollIntervalMs: 20 } as const;
    server.tool(
      { name: "ask" },
      async (_args, context) => {
        const answer = await context.elicit(FORM);
        return `Hello, ${String((answer.content as JsonObject | undefined)?.name)}`;
      },
      { task },
    );
    server.tool(
      { name: "boom" },
      () => {
        throw new JsonRpcError(-32050, "went wrong");
      },
      { task },
    );
    server.tool(
      { name: "wait" },
      async (_args, context) => {
        handlerAborted = new Promise((resolve) =>
          context.signal.addEventListener("abort", () => resolve()),
        );
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return "released";
      },
      { task },
    );
    served = await serveHttp(server);
  });
  after(async () => {
    release();
    await served.close();
  });

  async function client(handlers = {}) {
    const mcp = new McpClient({ clientInfo: { name: "c", version: "1" }, handlers });
    await mcp.connect(new HttpClientTransport(served.url));
    return mcp;
  }

  it("callTool returns the final result of a task, answering its input through the handlers", async () => {
    let asked = 0;
    const mcp = await client({
      elicitation: async () => {
        asked += 1;
        return { action: "accept", content: { name: "Ada" } };
      },
    });
    const statuses: string[] = [];
    const result = await mcp.callTool(
      "ask",
      {},
      { onTaskStatus: (t) => statuses.push(String(t.status)) },
    );
    assert.deepEqual(result.content, [{ type: "text", text: "Hello, Ada" }]);
    assert.equal(asked, 1, "each input request is answered once, however often it is polled");
    assert.equal(statuses[0], "working");
    assert.ok(statuses.includes("input_required"));
    await mcp.close();
  });

  it("a failed task rejects with its JSON-RPC error", async () => {
    const mcp = await client();
    await assert.rejects(mcp.callTool("boom"), (error: unknown) => {
      return error instanceof JsonRpcError && error.code === -32050;
    });
    await mcp.close();
  });

  it("keeps the handle on request, and client.tasks gets and cancels it (Mcp-Name checked)", async () => {
    const mcp = await client();
    const handle = (await mcp.callTool(
      "wait",
      {},
      { returnTaskHandle: true },
    )) as unknown as JsonObject;
    assert.equal(handle.resultType, "task");
    const taskId = handle.taskId as string;
    assert.equal((await mcp.tasks.get(taskId)).status, "working");
    await mcp.tasks.cancel(taskId);
    await handlerAborted;
    assert.equal((await mcp.tasks.get(taskId)).status, "cancelled");
    release();
    await mcp.close();
  });

  it("aborting callTool cancels the task on the server", async () => {
    const mcp = await client();
    const controller = new AbortController();
    let taskId = "";
    const call = mcp.callTool(
      "wait",
      {},
      {
        signal: controller.signal,
        onTaskStatus: (task) => {
          taskId = String(task.taskId);
          controller.abort();
        },
      },
    );
    await assert.rejects(call, LocalError);
    await handlerAborted;
    assert.equal((await mcp.tasks.get(taskId)).status, "cancelled");
    release();
    await mcp.close();
  });

  it("a task cancelled elsewhere rejects the waiting call with TaskCancelledError", async () => {
    const mcp = await client();
    const other = await client();
    const call = mcp.callTool(
      "wait",
      {},
      {
        onTaskStatus: (task) => {
          if (task.status === "working") void other.tasks.cancel(String(task.taskId));
        },
      },
    );
    await assert.rejects(call, TaskCancelledError);
    release();
    await mcp.close();
    await other.close();
  });
});
