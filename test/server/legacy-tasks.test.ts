import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { McpServer } from "../../src/server/index.js";
import type { TasksOptions } from "../../src/server/tasks/manager.js";
import { assertLegacyShape } from "../helpers/legacy-schema.js";
import { legacyTaskClient } from "./legacy-tasks-helpers.js";
import { GO_AHEAD_FORM } from "./tasks-helpers.js";

const RELATED = "io.modelcontextprotocol/related-task";

/** A gate the test opens: the "slow" tool's handler waits on it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

function server(tasks: TasksOptions = {}) {
  const release = gate();
  const aborted: string[] = [];
  const server = new McpServer({
    serverInfo: { name: "legacy-tasks", version: "1" },
    tasks: { answerCheckMs: 20, ...tasks },
    onError: () => {},
  });
  server.tool(
    { name: "slow" },
    async (_args, context) => {
      context.signal.addEventListener("abort", () => aborted.push("slow"));
      await Promise.race([
        release.opened,
        new Promise((_, reject) =>
          context.signal.addEventListener("abort", () => reject(context.signal.reason)),
        ),
      ]);
      return "done";
    },
    { task: { support: "optional" } },
  );
  server.tool(
    { name: "ask" },
    async (_args, context) => JSON.stringify(await context.elicit(GO_AHEAD_FORM)),
    { task: { support: "required" } },
  );
  server.tool(
    { name: "boom" },
    async () => {
      throw new JsonRpcError(-32050, "the tool broke", { why: "test" });
    },
    { task: { support: "optional" } },
  );
  server.tool({ name: "quick" }, async () => "quick", { task: { support: "optional" } });
  server.tool(
    { name: "refuse" },
    async () => ({ content: [{ type: "text", text: "no such file" }], isError: true }),
    { task: { support: "optional" } },
  );
  server.tool({ name: "plain" }, async () => "plain");
  return { server, release, aborted };
}

async function created(client: Awaited<ReturnType<typeof legacyTaskClient>>, params: JsonObject) {
  const result = await client.ok("tools/call", params, "CreateTaskResult");
  return (result.task as JsonObject).taskId as string;
}

async function rpcError(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: number; message: string };
  }
  assert.fail("expected a JSON-RPC error");
}

describe("legacy (2025-11-25) tasks on the server", () => {
  it("advertises tasks and each tool's taskSupport", async () => {
    const { server: s } = server();
    const client = await legacyTaskClient(s);
    assert.deepEqual((client.init.capabilities as JsonObject).tasks, {
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = (await client.ok("tools/list", {}, "ListToolsResult")) as {
      tools: { name: string; execution?: JsonObject }[];
    };
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    assert.deepEqual(support, {
      slow: "optional",
      ask: "required",
      boom: "optional",
      quick: "optional",
      refuse: "optional",
      plain: undefined,
    });
    client.close();
    await s.close();
  });

  it("runs a task: get, list, a blocking result, status notifications", async () => {
    const { server: s, release } = server();
    const client = await legacyTaskClient(s);
    const taskId = await created(client, { name: "slow", task: { ttl: 60_000 } });
    const got = await client.ok("tasks/get", { taskId }, "GetTaskResult");
    assert.equal(got.status, "working");
    assert.equal(got.ttl, 60_000);
    const listed = await client.ok("tasks/list", {}, "ListTasksResult");
    assert.deepEqual(
      (listed.tasks as JsonObject[]).map((task) => task.taskId),
      [taskId],
    );
    const result = client.ok("tasks/result", { taskId }, "CallToolResult");
    release.open();
    const done = await result;
    assert.deepEqual(done.content, [{ type: "text", text: "done" }]);
    assert.deepEqual((done._meta as JsonObject)[RELATED], { taskId });
    assert.equal((await client.ok("tasks/get", { taskId }, "GetTaskResult")).status, "completed");
    await client.until(() => client.notifications.some((n) => n.params?.status === "completed"));
    const status = client.notifications.find((n) => n.method === "notifications/tasks/status");
    assert.equal(status?.params?.taskId, taskId);
    client.close();
    await s.close();
  });

  it("negotiates per tool: required needs `task`, plain refuses it, optional runs either way", async () => {
    const { server: s } = server();
    const client = await legacyTaskClient(s);
    assert.equal(
      (await rpcError(client.ok("tools/call", { name: "ask" }, "CallToolResult"))).code,
      -32601,
    );
    const refused = await rpcError(
      client.ok("tools/call", { name: "plain", task: {} }, "CreateTaskResult"),
    );
    assert.equal(refused.code, -32601);
    const plain = await client.ok("tools/call", { name: "quick" }, "CallToolResult");
    assert.deepEqual(plain.content, [{ type: "text", text: "quick" }]);
    const bad = await rpcError(client.ok("tools/call", { name: "slow", task: { ttl: -1 } }, "X"));
    assert.equal(bad.code, -32602);
    client.close();
    await s.close();
  });

  for (const action of ["accept", "decline"] as const) {
    it(`input_required: tasks/result carries the elicitation (${action}) with the task's id`, async () => {
      const { server: s } = server();
      const client = await legacyTaskClient(s, { elicitation: {} }, () =>
        action === "accept" ? { action, content: { ok: true } } : { action },
      );
      const taskId = await created(client, { name: "ask", task: {} });
      await client.until(() =>
        client.notifications.some((n) => n.params?.status === "input_required"),
      );
      assert.equal(
        (await client.ok("tasks/get", { taskId }, "GetTaskResult")).status,
        "input_required",
      );
      const done = await client.ok("tasks/result", { taskId }, "CallToolResult");
      const [asked] = client.requests;
      assert.equal(asked?.method, "elicitation/create");
      assert.deepEqual((asked!.params!._meta as JsonObject)[RELATED], { taskId });
      const text = (done.content as { text: string }[])[0]!.text;
      assert.equal(JSON.parse(text).action, action);
      client.close();
      await s.close();
    });
  }

  it("input_required: a client's error answer fails the handler's input call", async () => {
    const { server: s } = server();
    const client = await legacyTaskClient(s, { elicitation: {} }, () => ({
      error: { code: -32603, message: "no user here" },
    }));
    const taskId = await created(client, { name: "ask", task: {} });
    await client.until(() =>
      client.notifications.some((n) => n.params?.status === "input_required"),
    );
    const failed = await rpcError(client.ok("tasks/result", { taskId }, "CallToolResult"));
    assert.match(failed.message, /no user here/);
    assert.equal((await client.ok("tasks/get", { taskId }, "GetTaskResult")).status, "failed");
    client.close();
    await s.close();
  });

  it("a failed task's tasks/result is the tool's JSON-RPC error", async () => {
    const { server: s } = server();
    const client = await legacyTaskClient(s);
    const taskId = await created(client, { name: "boom", task: {} });
    const reply = await client.call("tasks/result", { taskId });
    assert.equal(reply.error?.code, -32050);
    assert.equal(reply.error?.message, "the tool broke");
    assert.deepEqual(reply.error?.data, { why: "test", [RELATED]: { taskId } });
    const got = await client.ok("tasks/get", { taskId }, "GetTaskResult");
    assert.equal(got.status, "failed");
    client.close();
    await s.close();
  });

  it("a tool result with isError is a failed task here (completed in the extension); tasks/result gives it", async () => {
    const { server: s } = server();
    const client = await legacyTaskClient(s);
    const taskId = await created(client, { name: "refuse", task: {} });
    const result = await client.ok("tasks/result", { taskId }, "CallToolResult");
    assert.equal(result.isError, true);
    assert.deepEqual(result.content, [{ type: "text", text: "no such file" }]);
    const got = await client.ok("tasks/get", { taskId }, "GetTaskResult");
    assert.equal(got.status, "failed");
    assert.equal(got.statusMessage, "The tool reported an error: no such file");
    await client.until(() => client.notifications.some((n) => n.params?.status === "failed"));
    const statuses = client.notifications.map((n) => n.params?.status);
    assert.ok(!statuses.includes("completed"), `statuses: ${statuses.join(", ")}`);
    const cancel = await client.call("tasks/cancel", { taskId });
    assert.equal(cancel.error?.code, -32602);
    assert.equal(cancel.error?.message, "Cannot cancel a task that is already failed");
    client.close();
    await s.close();
  });

  it("cancels: the handler stops, a waiting tasks/result ends, a second cancel is -32602", async () => {
    const { server: s, aborted } = server();
    const client = await legacyTaskClient(s);
    const taskId = await created(client, { name: "slow", task: {} });
    const waiting = client.call("tasks/result", { taskId });
    const cancelled = await client.ok("tasks/cancel", { taskId }, "CancelTaskResult");
    assert.equal(cancelled.status, "cancelled");
    assert.deepEqual(aborted, ["slow"]);
    const ended = await waiting;
    assert.equal(ended.error?.code, -32603);
    assert.equal((await client.call("tasks/cancel", { taskId })).error?.code, -32602);
    assert.equal(s.tasks?.running, 0);
    client.close();
    await s.close();
  });

  it("unknown and another session's task ids look alike (-32602); lists are per session", async () => {
    const { server: s, release } = server();
    const mine = await legacyTaskClient(s);
    const theirs = await legacyTaskClient(s);
    const taskId = await created(mine, { name: "slow", task: {} });
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
      const foreign = await theirs.call(method, { taskId });
      const unknown = await theirs.call(method, { taskId: "no-such-task" });
      assert.equal(foreign.error?.code, -32602, method);
      assert.deepEqual(foreign.error?.message, unknown.error?.message);
    }
    assert.deepEqual((await theirs.ok("tasks/list", {}, "ListTasksResult")).tasks, []);
    assert.equal((await mine.call("tasks/get", {})).error?.code, -32602);
    release.open();
    mine.close();
    theirs.close();
    await s.close();
  });

  it("expires with its TTL: the asked ttl is kept when shorter, the task is gone after", async () => {
    let now = 1_000_000;
    const { server: s, release } = server({ now: () => now, ttlMs: 60_000 });
    const client = await legacyTaskClient(s);
    const longer = await client.ok(
      "tools/call",
      { name: "slow", task: { ttl: 120_000 } },
      "CreateTaskResult",
    );
    assert.equal((longer.task as JsonObject).ttl, 60_000, "never past the tool's own TTL");
    const taskId = await created(client, { name: "slow", task: { ttl: 5_000 } });
    assert.equal((await client.ok("tasks/get", { taskId }, "GetTaskResult")).ttl, 5_000);
    now += 5_000;
    assert.equal((await client.call("tasks/get", { taskId })).error?.code, -32602);
    release.open();
    client.close();
    await s.close();
  });

  it("counts a session's tasks against maxTasksPerOwner, each session apart", async () => {
    const { server: s, release } = server({ maxTasksPerOwner: 1 });
    const first = await legacyTaskClient(s);
    const second = await legacyTaskClient(s);
    await created(first, { name: "slow", task: {} });
    const over = await first.call("tools/call", { name: "slow", task: {} });
    assert.equal(over.error?.code, -32603);
    assert.match(over.error?.message ?? "", /maxTasksPerOwner/);
    await created(second, { name: "slow", task: {} });
    release.open();
    first.close();
    second.close();
    await s.close();
  });

  it("keeps the schema's shapes for every task message", () => {
    assertLegacyShape("TaskStatusNotificationParams", {
      taskId: "t",
      status: "working",
      createdAt: new Date(0).toISOString(),
      lastUpdatedAt: new Date(0).toISOString(),
      ttl: null,
    });
  });
});
