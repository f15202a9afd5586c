import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { McpServer } from "../../src/server/index.js";
import { TASKS_EXTENSION } from "../../src/server/tasks/wire.js";
import { legacyClient, modernClient, pollUntil, WITH_TASKS } from "./tasks-helpers.js";

function taskServer() {
  const server = new McpServer({ serverInfo: { name: "tasks", version: "1" }, onError: () => {} });
  server.tool({ name: "plain" }, () => "plain answer");
  server.tool({ name: "opt" }, () => "optional answer", {
    task: { support: "optional", ttlMs: 90_000, pollIntervalMs: 250 },
  });
  server.tool({ name: "req" }, () => "required answer", { task: { support: "required" } });
  server.tool(
    { name: "tool_error" },
    () => ({ content: [{ type: "text", text: "bad input" }], isError: true }),
    { task: { support: "optional" } },
  );
  server.tool(
    { name: "throws" },
    () => {
      throw new JsonRpcError(-32050, "upstream refused", { why: "quota" });
    },
    { task: { support: "optional" } },
  );
  server.tool({ name: "quick_or_task" }, (args) => `took ${String(args.n)}`, {
    task: { support: "optional", when: (args) => Number(args.n) > 10 },
  });
  return server;
}

const text = (result: unknown) =>
  ((result as { content: { text: string }[] }).content[0] as { text: string }).text;

describe("tasks: dispatch", () => {
  it("a declaring client gets a flat CreateTaskResult with the tool's ttlMs and pollIntervalMs", async () => {
    const client = modernClient(taskServer());
    const created = await client.ok("tools/call", { name: "opt" });
    assert.equal(created.resultType, "task");
    assert.equal(created.status, "working");
    assert.equal(created.ttlMs, 90_000);
    assert.equal(created.pollIntervalMs, 250);
    for (const absent of ["result", "error", "inputRequests", "requestState", "task"]) {
      assert.ok(!(absent in created), absent);
    }
    const done = await pollUntil(client, created.taskId as string, (t) => t.status === "completed");
    assert.equal(done.resultType, "complete");
    assert.equal(text(done.result), "optional answer");
  });

  it("a client without the extension gets plain results, and -32021 for a required tool", async () => {
    const client = modernClient(taskServer());
    const plain = await client.ok("tools/call", { name: "opt" }, {});
    assert.equal(plain.resultType, "complete");
    assert.equal(text(plain), "optional answer");
    const refused = await client.call("tools/call", { name: "req" }, {});
    assert.equal(refused.error?.code, -32021);
    assert.deepEqual(refused.error?.data, {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const reply = await client.call(method, { taskId: "x", inputResponses: {} }, {});
      assert.equal(reply.error?.code, -32021, method);
    }
  });

  it("never promotes a tool without task support, and a tool may answer at once per call", async () => {
    const client = modernClient(taskServer());
    const plain = await client.ok("tools/call", { name: "plain", task: { ttl: 1 } });
    assert.equal(plain.resultType, "complete");
    assert.equal(
      (await client.ok("tools/call", { name: "quick_or_task", arguments: { n: 1 } })).resultType,
      "complete",
    );
    assert.equal(
      (await client.ok("tools/call", { name: "quick_or_task", arguments: { n: 99 } })).resultType,
      "task",
    );
  });

  it("tool isError completes with the result; a thrown JSON-RPC error fails with it", async () => {
    const client = modernClient(taskServer());
    const a = await client.ok("tools/call", { name: "tool_error" });
    const completed = await pollUntil(client, a.taskId as string, (t) => t.status !== "working");
    assert.equal(completed.status, "completed");
    assert.equal((completed.result as { isError: boolean }).isError, true);
    const b = await client.ok("tools/call", { name: "throws" });
    const failed = await pollUntil(client, b.taskId as string, (t) => t.status !== "working");
    assert.equal(failed.status, "failed");
    assert.deepEqual(failed.error, {
      code: -32050,
      message: "upstream refused",
      data: { why: "quota" },
    });
    assert.ok(!("result" in failed));
  });

  it("unknown ids get -32602; tasks/result and tasks/list are gone (-32601)", async () => {
    const client = modernClient(taskServer());
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const reply = await client.call(method, { taskId: "no-such-task", inputResponses: {} });
      assert.equal(reply.error?.code, -32602, method);
    }
    assert.equal((await client.call("tasks/result", { taskId: "x" })).error?.code, -32601);
    assert.equal((await client.call("tasks/list", {})).error?.code, -32601);
  });

  it("advertises the extension only when a task tool exists", async () => {
    const bare = new McpServer({ serverInfo: { name: "bare", version: "1" } });
    bare.tool({ name: "plain" }, () => "x");
    const none = await modernClient(bare).ok("server/discover");
    assert.equal((none.capabilities as { extensions?: object }).extensions, undefined);
    assert.equal((await modernClient(bare).call("tasks/get", { taskId: "x" })).error?.code, -32601);
    const found = await modernClient(taskServer()).ok("server/discover");
    assert.deepEqual((found.capabilities as { extensions: object }).extensions, {
      [TASKS_EXTENSION]: {},
    });
  });

  it("cancel: acks, settles to cancelled, aborts the handler's signal, and is idempotent", async () => {
    const server = taskServer();
    let aborted = false;
    server.tool(
      { name: "forever" },
      async (_args, context) => {
        await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
        aborted = true;
        return "stopped";
      },
      { task: { support: "optional" } },
    );
    const client = modernClient(server);
    const { taskId } = await client.ok("tools/call", { name: "forever" });
    const ack = await client.ok("tasks/cancel", { taskId });
    assert.equal(ack.resultType, "complete");
    assert.ok(!("taskId" in ack) && !("status" in ack));
    assert.equal((await client.ok("tasks/get", { taskId })).status, "cancelled");
    await pollUntil(client, taskId as string, () => aborted);
    // The handler's late answer does not revive the task; a second cancel is the same ack.
    assert.equal((await client.ok("tasks/cancel", { taskId })).resultType, "complete");
    assert.equal((await client.ok("tasks/get", { taskId })).status, "cancelled");
  });

  it("a cancel racing completion leaves a completed task completed", async () => {
    const client = modernClient(taskServer());
    const { taskId } = await client.ok("tools/call", { name: "opt" });
    await pollUntil(client, taskId as string, (t) => t.status === "completed");
    await client.ok("tasks/cancel", { taskId });
    const after = await client.ok("tasks/get", { taskId });
    assert.equal(after.status, "completed");
    assert.equal(text(after.result), "optional answer");
  });

  it("creates the task durably before replying, even on a slow async store", async () => {
    const { InMemoryTaskStore } = await import("../../src/server/tasks/memory-store.js");
    const inner = new InMemoryTaskStore({ sweepIntervalMs: 0 });
    const slow = {
      create: async (record: Parameters<typeof inner.create>[0]) => {
        await delay(30);
        await inner.create(record);
      },
      get: async (taskId: string) => {
        await delay(5);
        return inner.get(taskId);
      },
      compareAndSet: async (...args: Parameters<typeof inner.compareAndSet>) => {
        await delay(5);
        return inner.compareAndSet(...args);
      },
    };
    const server = new McpServer({
      serverInfo: { name: "slow", version: "1" },
      onError: () => {},
      tasks: { store: slow },
    });
    server.tool({ name: "opt" }, async () => "slow store answer", {
      task: { support: "optional" },
    });
    const client = modernClient(server);
    const { taskId } = await client.ok("tools/call", { name: "opt" });
    const first = await client.call("tasks/get", { taskId });
    assert.equal(first.error, undefined, "the very first tasks/get finds the task");
    const done = await pollUntil(client, taskId as string, (t) => t.status === "completed");
    assert.equal(text(done.result), "slow store answer");
  });

  it("legacy era: the session's declared extension decides, as per-request capabilities do", async () => {
    const withExtension = await legacyClient(taskServer(), WITH_TASKS);
    assert.deepEqual((withExtension.init.capabilities as { extensions: object }).extensions, {
      [TASKS_EXTENSION]: {},
    });
    const created = (await withExtension.call("tools/call", { name: "opt" })).result!;
    assert.equal(created.resultType, "task");
    let task = created;
    while (task.status === "working") {
      task = (await withExtension.call("tasks/get", { taskId: created.taskId })).result!;
    }
    assert.equal(task.status, "completed");
    const without = await legacyClient(taskServer(), {});
    const plain = (await without.call("tools/call", { name: "opt" })).result!;
    assert.equal(plain.resultType, undefined);
    assert.equal(text(plain), "optional answer");
    // Without the extension a legacy session speaks 2025-11-25 tasks (legacy-tasks.test.ts): a
    // required task tool called without `task` is -32601 there, and tasks/get its own method.
    assert.equal((await without.call("tools/call", { name: "req" })).error?.code, -32601);
    assert.equal((await without.call("tasks/get", { taskId: "x" })).error?.code, -32602);
  });
});
