import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { McpServer } from "../../src/server/index.js";
import { modernClient, pollUntil } from "./tasks-helpers.js";

const NAME_FORM = {
  mode: "form",
  message: "Name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } } },
};

function server() {
  const server = new McpServer({
    serverInfo: { name: "compose", version: "1" },
    onError: () => {},
  });
  server.tool(
    { name: "ask_then_task" },
    async (args, context) => {
      const answer = await context.elicit(NAME_FORM, { key: "user_name" });
      const name = String((answer.content as JsonObject | undefined)?.name);
      if (args.quick === true) return `quick ${name}`;
      const started = await context.startTask();
      const again = await context.elicit(NAME_FORM);
      return `${name} then ${String((again.content as JsonObject | undefined)?.name)} (task: ${started})`;
    },
    { task: { support: "required", start: "handler" } },
  );
  server.tool({ name: "ask" }, (_args, context) => context.elicit(NAME_FORM).then(() => "ok"), {
    task: { support: "optional" },
  });
  return server;
}

describe("tasks: multi round-trip before the task, input inside it", () => {
  it("round 1 is input_required without a taskId; round 2 is a task whose input parks it", async () => {
    const client = modernClient(server());
    const round1 = await client.ok("tools/call", { name: "ask_then_task" });
    assert.equal(round1.resultType, "input_required");
    assert.ok(!("taskId" in round1));
    assert.deepEqual(Object.keys(round1.inputRequests as object), ["user_name"]);
    const round2 = await client.ok("tools/call", {
      name: "ask_then_task",
      requestState: round1.requestState,
      inputResponses: { user_name: { action: "accept", content: { name: "Alice" } } },
    });
    assert.equal(round2.resultType, "task");
    assert.ok(!("requestState" in round2) && !("inputRequests" in round2));
    const taskId = round2.taskId as string;
    const parked = await pollUntil(client, taskId, (t) => t.status === "input_required");
    const [key] = Object.keys(parked.inputRequests as object);
    assert.notEqual(key, "user_name");
    await client.ok("tasks/update", {
      taskId,
      inputResponses: { [key!]: { action: "accept", content: { name: "Bob" } } },
    });
    const done = await pollUntil(client, taskId, (t) => t.status === "completed");
    const text = (done.result as { content: { text: string }[] }).content[0]!.text;
    assert.equal(text, "Alice then Bob (task: true)");
  });

  it("a handler that returns before startTask() answers with a plain result", async () => {
    const client = modernClient(server());
    const round1 = await client.ok("tools/call", {
      name: "ask_then_task",
      arguments: { quick: true },
    });
    const round2 = await client.ok("tools/call", {
      name: "ask_then_task",
      arguments: { quick: true },
      requestState: round1.requestState,
      inputResponses: { user_name: { action: "accept", content: { name: "Cy" } } },
    });
    assert.equal(round2.resultType, "complete");
    assert.equal((round2.content as { text: string }[])[0]!.text, "quick Cy");
  });

  it("tasks/update: a malformed answer to an outstanding key is -32602; unknown keys are ignored", async () => {
    const client = modernClient(server());
    const { taskId } = await client.ok("tools/call", { name: "ask" });
    const parked = await pollUntil(client, taskId as string, (t) => t.status === "input_required");
    const [key] = Object.keys(parked.inputRequests as object);
    const bad = await client.call("tasks/update", {
      taskId,
      inputResponses: { [key!]: { action: "maybe" } },
    });
    assert.equal(bad.error?.code, -32602);
    const stray = await client.ok("tasks/update", {
      taskId,
      inputResponses: { "never-issued": {} },
    });
    assert.equal(stray.resultType, "complete");
    assert.equal((await client.ok("tasks/get", { taskId })).status, "input_required");
    const missing = await client.call("tasks/update", { taskId });
    assert.equal(missing.error?.code, -32602);
  });

  it("server.close() fails the tasks still running, so no client polls a task forever", async () => {
    const mcp = server();
    const client = modernClient(mcp);
    const { taskId } = await client.ok("tools/call", { name: "ask" });
    await pollUntil(client, taskId as string, (t) => t.status === "input_required");
    const record = mcp.tasks!.store.get(taskId as string);
    await mcp.close();
    const after = await mcp.tasks!.store.get(taskId as string);
    assert.equal((await record)?.status, "input_required");
    assert.equal(after?.status, "failed");
    assert.equal(after?.error?.code, -32603);
  });
});

describe("tasks: a handler outliving its task's TTL", () => {
  it("is stopped (signal aborted) once the TTL has elapsed, and the task is forgotten", async () => {
    const mcp = new McpServer({ serverInfo: { name: "ttl", version: "1" }, onError: () => {} });
    let stopped!: () => void;
    const aborted = new Promise<void>((resolve) => {
      stopped = resolve;
    });
    mcp.tool(
      { name: "stuck" },
      async (_args, context) => {
        await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
        stopped();
        return "never seen";
      },
      { task: { support: "optional", ttlMs: 30 } },
    );
    const client = modernClient(mcp);
    const { taskId } = await client.ok("tools/call", { name: "stuck" });
    assert.equal(mcp.tasks!.running, 1);
    // The TTL timer is unref'd (it never keeps a server alive): hold the loop open meanwhile.
    const keepAlive = setInterval(() => {}, 1000);
    await aborted;
    clearInterval(keepAlive);
    assert.equal(mcp.tasks!.running, 0);
    assert.equal((await client.call("tasks/get", { taskId })).error?.code, -32602);
  });
});
