/**
 * McpClient against 2025-11-25 tasks: our server in its legacy era over HTTP (required tools
 * run as tasks unasked, optional ones on `task: true`, input answered through tasks/result,
 * abort cancels, client.tasks get/list/result/cancel), and the official everything server's
 * simulate-research-query over stdio (plain, and ambiguous with the elicitation answered and
 * declined).
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { JsonRpcError, LocalError } from "../../src/jsonrpc/errors.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { McpServer } from "../../src/server/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";
import { StdioClientTransport } from "../../src/transports/stdio/client.js";

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

const text = (result: JsonObject) => (result.content as { text: string }[])[0]!.text;

describe("McpClient on a 2025-11-25 task server (ours, legacy era, HTTP)", () => {
  let served: ServedHttp;
  let release: () => void = () => {};
  let handlerAborted: Promise<void> = Promise.resolve();
  before(async () => {
    const server = new McpServer({
      serverInfo: { name: "legacy-tasks", version: "1" },
      eras: "legacy",
      tasks: { pollIntervalMs: 20, answerCheckMs: 20 },
      onError: () => {},
    });
    server.tool(
      { name: "ask" },
      async (_args, context) => {
        const answer = await context.elicit({
          mode: "form",
          message: "Name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } } },
        });
        return `hello ${JSON.stringify(answer)}`;
      },
      { task: { support: "required" } },
    );
    server.tool({ name: "maybe" }, async () => "maybe done", { task: { support: "optional" } });
    server.tool(
      { name: "boom" },
      async () => {
        throw new JsonRpcError(-32050, "went wrong");
      },
      { task: { support: "required" } },
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
      { task: { support: "optional" } },
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
    assert.equal(mcp.era, "legacy");
    return mcp;
  }

  it("calls a required task tool as a task unasked, answering its elicitation", async () => {
    let asked: JsonObject | undefined;
    const mcp = await client({
      elicitation: async (params: JsonObject) => {
        asked = params;
        return { action: "accept", content: { name: "Ada" } };
      },
    });
    const statuses: string[] = [];
    const result = await mcp.callTool(
      "ask",
      {},
      { onTaskStatus: (t) => statuses.push(t.status as string) },
    );
    assert.equal(text(result), 'hello {"action":"accept","content":{"name":"Ada"}}');
    assert.equal(statuses[0], "working");
    assert.ok(asked && (asked._meta as JsonObject)["io.modelcontextprotocol/related-task"]);
    await mcp.close();
  });

  it("optional tools: plain unless the caller asks for a task; a failed task throws its error", async () => {
    const mcp = await client();
    const statuses: JsonObject[] = [];
    const plain = await mcp.callTool("maybe", {}, { onTaskStatus: (t) => statuses.push(t) });
    assert.equal(text(plain), "maybe done");
    assert.equal(statuses.length, 0);
    const asTask = await mcp.callTool(
      "maybe",
      {},
      {
        task: { ttlMs: 30_000 },
        onTaskStatus: (t) => statuses.push(t),
      },
    );
    assert.equal(text(asTask), "maybe done");
    assert.equal(statuses[0]?.ttlMs, 30_000, "statuses in the extension's field names");
    assert.equal(statuses[0]?.pollIntervalMs, 20);
    await assert.rejects(mcp.callTool("boom"), (error: unknown) => {
      return error instanceof JsonRpcError && error.code === -32050;
    });
    await mcp.close();
  });

  it("an aborted call cancels its task; client.tasks gets, lists and fetches results", async () => {
    const mcp = await client();
    const abort = new AbortController();
    let taskId = "";
    const call = mcp.callTool(
      "wait",
      {},
      {
        task: true,
        signal: abort.signal,
        onTaskStatus: (t) => {
          taskId = t.taskId as string;
          abort.abort();
        },
      },
    );
    await assert.rejects(
      call,
      (error: unknown) => error instanceof LocalError && error.kind === "aborted",
    );
    await handlerAborted;
    const got = await mcp.tasks.get(taskId);
    assert.equal(got.status, "cancelled");
    assert.equal(typeof got.ttlMs, "number");
    const handle = await mcp.callTool("maybe", {}, { task: true, returnTaskHandle: true });
    const made = (handle as unknown as { task: JsonObject }).task;
    assert.equal(text(await mcp.tasks.result(made.taskId as string)), "maybe done");
    const listed = await mcp.tasks.list();
    const ids = (listed.tasks as JsonObject[]).map((t) => t.taskId);
    assert.ok(ids.includes(taskId) && ids.includes(made.taskId));
    await mcp.close();
  });
});

describe("McpClient and the official everything server's simulate-research-query (stdio)", () => {
  async function research(args: JsonObject, action: "accept" | "decline" | undefined) {
    const asked: JsonObject[] = [];
    const mcp = new McpClient({
      clientInfo: { name: "mcpwire-test", version: "1" },
      handlers: {
        elicitation: async (params: JsonObject) => {
          asked.push(params);
          return action === "accept"
            ? { action, content: { interpretation: "programming" } }
            : { action: action ?? "decline" };
        },
      },
      requestTimeoutMs: 60_000,
    });
    await mcp.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [EVERYTHING, "stdio"],
        stderr: "pipe",
      }),
    );
    try {
      const statuses: JsonObject[] = [];
      const result = await mcp.callTool("simulate-research-query", args, {
        onTaskStatus: (task) => statuses.push(task),
      });
      return { report: text(result), statuses, asked };
    } finally {
      await mcp.close();
    }
  }

  it("runs it as a task unasked and returns the report", async () => {
    const { report, statuses, asked } = await research({ topic: "tide pools" }, undefined);
    assert.match(report, /# Research Report: tide pools/);
    assert.equal(statuses[0]?.status, "working");
    assert.ok(
      statuses.some((s) => typeof s.statusMessage === "string"),
      "statusMessage surfaced",
    );
    assert.equal(asked.length, 0);
  });

  for (const action of ["accept", "decline"] as const) {
    it(`ambiguous: the elicitation comes through tasks/result answered with ${action}`, async () => {
      const { report, asked } = await research({ topic: "python", ambiguous: true }, action);
      assert.equal(asked.length, 1);
      assert.match(
        report,
        action === "accept" ? /Clarification\*\*: programming/ : /User declined/,
      );
    });
  }
});
