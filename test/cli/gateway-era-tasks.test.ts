/**
 * `mcpwire gateway` relaying tasks across eras, with real subprocesses: the official everything
 * server (a 2025-11-25 task server) behind the gateway reaches a modern HTTP client as the tasks
 * extension (statuses, input_required answered with tasks/update, cancel reaching the child),
 * and a legacy client as the gateway's own 2025-11-25 tasks (the child's are its session's);
 * our everything example (modern, the extension) behind it reaches the official v1 SDK client
 * over legacy HTTP as 2025-11-25 tasks (callToolStream: created, statuses, result, and an
 * elicitation asked through tasks/result).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  ElicitRequestSchema,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpClient } from "../../src/client/index.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import {
  connectClient,
  OUR_EVERYTHING,
  type RunningGateway,
  SERVER_EVERYTHING,
  sentToChildAtLeast,
  startGateway,
} from "./gateway-run.js";
import { stop } from "./run-cli.js";

function text(result: { content?: unknown }): string {
  const first = (result.content as Array<{ type: string; text?: string }> | undefined)?.[0];
  return first?.type === "text" ? (first.text ?? "") : "";
}

describe("gateway: a 2025-11-25 child's tasks reach a modern client as the extension", () => {
  let running: RunningGateway;
  let client: McpClient;
  let answer: JsonObject = { action: "accept", content: { interpretation: "ocean tides" } };
  const asked: JsonObject[] = [];

  before(async () => {
    running = await startGateway(SERVER_EVERYTHING, ["--verbose"]);
    ({ client } = await connectClient(running.url, "modern", {
      tasks: true,
      handlers: {
        elicitation: async (params) => {
          asked.push(params);
          return answer as never;
        },
      },
    }));
  });
  after(async () => {
    await client?.close();
    if (running) await stop(running.gateway);
  });

  it("offers the extension for the child's 2025-11-25 tasks", () => {
    const extensions = client.serverCapabilities?.extensions as JsonObject | undefined;
    assert.ok(extensions?.["io.modelcontextprotocol/tasks"]);
  });

  it("simulate-research-query runs as an extension task: statuses, then the report", async () => {
    const statuses: string[] = [];
    const result = await client.callTool(
      "simulate-research-query",
      { topic: "tides" },
      { onTaskStatus: (task) => statuses.push(String(task.status)) },
    );
    assert.match(text(result), /# Research Report: tides/);
    assert.equal(statuses[0], "working");
    assert.equal(statuses.at(-1), "completed");
  });

  for (const action of ["accept", "decline"] as const) {
    it(`the child's elicitation is an input request, answered with tasks/update (${action})`, async () => {
      answer =
        action === "accept" ? { action, content: { interpretation: "ocean tides" } } : { action };
      const before = asked.length;
      const statuses: string[] = [];
      const result = await client.callTool(
        "simulate-research-query",
        { topic: "tides", ambiguous: true },
        { onTaskStatus: (task) => statuses.push(String(task.status)) },
      );
      assert.equal(asked.length, before + 1);
      assert.match(String(asked.at(-1)?.message), /multiple interpretations/);
      assert.ok(statuses.includes("input_required"), statuses.join(", "));
      assert.match(text(result), /# Research Report: tides/);
      if (action === "accept") assert.match(text(result), /ocean tides/);
    });
  }

  it("a handle: the flat CreateTaskResult, tasks/get, and a cancel that reaches the child", async () => {
    const handle = (await client.callTool(
      "simulate-research-query",
      { topic: "waves" },
      { returnTaskHandle: true },
    )) as unknown as JsonObject;
    assert.equal(handle.resultType, "task");
    const taskId = String(handle.taskId);
    assert.equal(typeof handle.ttlMs, "number");
    assert.equal((await client.tasks.get(taskId)).status, "working");
    await client.tasks.cancel(taskId);
    assert.equal((await client.tasks.get(taskId)).status, "cancelled");
    await sentToChildAtLeast(running.gateway, /"method":"tasks\/cancel"/, 1);
  });
  it("a legacy client gets them as the gateway's own 2025-11-25 tasks, questions included", async () => {
    const legacyAsked: JsonObject[] = [];
    const { client: legacy } = await connectClient(running.url, "legacy", {
      handlers: {
        elicitation: async (params) => {
          legacyAsked.push(params);
          return { action: "accept", content: { interpretation: "tidal pools" } } as never;
        },
      },
    });
    try {
      assert.ok((legacy.serverCapabilities as JsonObject | undefined)?.tasks);
      const statuses: string[] = [];
      const result = await legacy.callTool(
        "simulate-research-query",
        { topic: "tides", ambiguous: true },
        { onTaskStatus: (task) => statuses.push(String(task.status)) },
      );
      assert.equal(statuses[0], "working");
      assert.equal(legacyAsked.length, 1);
      assert.match(text(result), /tidal pools/);
      const { tasks } = await legacy.tasks.list();
      assert.equal((tasks as JsonObject[]).length, 1);
    } finally {
      await legacy.close();
    }
  });
});

describe("gateway: a modern child's tasks reach a legacy client as 2025-11-25 tasks", () => {
  let running: RunningGateway;
  let client: Client;
  const asked: Record<string, unknown>[] = [];

  before(async () => {
    running = await startGateway(OUR_EVERYTHING);
    client = new Client(
      { name: "v1-through-gateway", version: "1" },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params as Record<string, unknown>);
      return { action: "accept", content: { confirm: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
  });
  after(async () => {
    await client?.close();
    if (running) await stop(running.gateway);
  });

  async function stream(name: string, args: Record<string, unknown>) {
    const seen: { created?: Task; statuses: Task[]; result?: CallToolResult; error?: Error } = {
      statuses: [],
    };
    const messages = client.experimental.tasks.callToolStream(
      { name, arguments: args },
      undefined,
      {
        task: { ttl: 60_000 },
      },
    );
    for await (const message of messages) {
      if (message.type === "taskCreated") seen.created = message.task;
      else if (message.type === "taskStatus") seen.statuses.push(message.task);
      else if (message.type === "result") seen.result = message.result as CallToolResult;
      else seen.error = message.error;
    }
    return seen;
  }

  it("advertises 2025-11-25 tasks and marks the child's tools as able to run as tasks", async () => {
    assert.deepEqual(client.getServerCapabilities()?.tasks, {
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await client.listTools();
    const slow = tools.find((tool) => tool.name === "slow_compute");
    assert.equal(slow?.execution?.taskSupport, "optional");
  });

  it("callToolStream: created, statuses, the result", async () => {
    const seen = await stream("slow_compute", { seconds: 0.3, label: "bridged" });
    assert.equal(seen.created?.status, "working");
    assert.equal(seen.created?.ttl, 60_000);
    assert.equal(seen.statuses.at(-1)?.status, "completed");
    assert.equal(text(seen.result ?? {}), "Computed bridged after 0.3 s");
    const { tasks } = await client.experimental.tasks.listTasks();
    assert.ok(tasks.some((task) => task.taskId === seen.created?.taskId));
  });

  it("the child's input request is asked through tasks/result and answered by the SDK", async () => {
    const before = asked.length;
    const seen = await stream("confirm_delete", { filename: "notes.txt" });
    assert.ok(seen.statuses.some((task) => task.status === "input_required"));
    assert.equal(asked.length, before + 1);
    assert.equal(asked.at(-1)?.message, "Delete notes.txt?");
    assert.equal(text(seen.result ?? {}), "Deleted notes.txt");
  });

  it("a cancel from the legacy client ends the task cancelled", async () => {
    let taskId = "";
    const messages = client.experimental.tasks.callToolStream(
      { name: "slow_compute", arguments: { seconds: 30 } },
      undefined,
      { task: { ttl: 60_000 } },
    );
    let last: Task | undefined;
    for await (const message of messages) {
      if (message.type === "taskCreated") {
        taskId = message.task.taskId;
        await client.experimental.tasks.cancelTask(taskId);
      } else if (message.type === "taskStatus") last = message.task;
    }
    assert.equal(last?.status, "cancelled");
  });
});
