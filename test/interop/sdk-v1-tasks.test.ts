/**
 * The official v1 TypeScript SDK client (`@modelcontextprotocol/sdk`, which task-augments
 * tools/call to servers advertising `tasks`) against our everything example as a real
 * subprocess, over stdio and over legacy Streamable HTTP: `experimental.tasks.callToolStream`
 * with a `task` option gets taskCreated, the statuses and the result; an input_required task's
 * elicitation reaches the SDK's handler through tasks/result; a task cancelled by the SDK ends
 * as cancelled and a second cancel is refused. The SDK checks every answer against its own
 * 2025-11-25 schemas, so a malformed task message fails here.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  ElicitRequestSchema,
  McpError,
  type Task,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type ListeningChild, spawnListening, stopChild } from "../helpers/listening-child.js";
import { until } from "../helpers/poll.js";

const SERVER = fileURLToPath(new URL("../../examples/everything-server.js", import.meta.url));
const RELATED = "io.modelcontextprotocol/related-task";

/** What one callToolStream yielded, in order. */
interface Streamed {
  kinds: string[];
  created?: Task;
  statuses: Task[];
  result?: CallToolResult;
  error?: McpError;
}

interface Peer {
  client: Client;
  /** Elicitation requests the SDK's handler answered. */
  elicitations: Record<string, unknown>[];
  /** notifications/tasks/status params the SDK heard. */
  notified: Task[];
  /** Errors the SDK reported outside any call. */
  errors: Error[];
  /** Whether the elicitation handler accepts (true) or declines. */
  accept: boolean;
}

async function connect(transport: Transport): Promise<Peer> {
  const client = new Client(
    { name: "sdk-v1-tasks", version: "1.0.0" },
    { capabilities: { elicitation: {} } },
  );
  const peer: Peer = { client, elicitations: [], notified: [], errors: [], accept: true };
  client.onerror = (error) => peer.errors.push(error);
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    peer.elicitations.push(request.params as Record<string, unknown>);
    return peer.accept ? { action: "accept", content: { confirm: true } } : { action: "decline" };
  });
  client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
    peer.notified.push(notification.params as Task);
  });
  await client.connect(transport);
  // tools/list tells the SDK each tool's execution.taskSupport.
  await client.listTools();
  return peer;
}

async function stream(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  onCreated?: (task: Task) => void,
): Promise<Streamed> {
  const seen: Streamed = { kinds: [], statuses: [] };
  const messages = client.experimental.tasks.callToolStream({ name, arguments: args }, undefined, {
    task: { ttl: 60_000 },
  });
  for await (const message of messages) {
    seen.kinds.push(message.type);
    if (message.type === "taskCreated") {
      seen.created = message.task;
      onCreated?.(message.task);
    } else if (message.type === "taskStatus") seen.statuses.push(message.task);
    else if (message.type === "result") seen.result = message.result as CallToolResult;
    else seen.error = message.error;
  }
  return seen;
}

function text(result: CallToolResult | undefined): string {
  const first = result?.content[0];
  return first?.type === "text" ? first.text : "";
}

function suite(
  label: string,
  open: () => Promise<{ transport: Transport; stop: () => Promise<void> }>,
) {
  describe(`official v1 SDK client tasks against the everything example (${label})`, () => {
    let peer: Peer;
    let stop: () => Promise<void>;

    before(async () => {
      const opened = await open();
      stop = opened.stop;
      peer = await connect(opened.transport);
    });
    after(async () => {
      await peer?.client.close();
      await stop?.();
    });

    it("advertises 2025-11-25 tasks and each tool's taskSupport", async () => {
      assert.deepEqual(peer.client.getServerCapabilities()?.tasks, {
        list: {},
        cancel: {},
        requests: { tools: { call: {} } },
      });
      const { tools } = await peer.client.listTools();
      const support = Object.fromEntries(
        tools.filter((tool) => tool.execution).map((t) => [t.name, t.execution?.taskSupport]),
      );
      assert.equal(support.slow_compute, "optional");
      assert.equal(support.failing_job, "required");
      assert.equal(support.confirm_delete, "optional");
    });

    it("callToolStream: taskCreated, working statuses, completed, the result", async () => {
      const seen = await stream(peer.client, "slow_compute", { seconds: 0.4, label: "sum" });
      assert.equal(seen.kinds[0], "taskCreated");
      assert.equal(seen.kinds.at(-1), "result");
      const taskId = seen.created?.taskId;
      assert.ok(taskId);
      assert.equal(seen.created?.status, "working");
      assert.equal(seen.created?.ttl, 60_000);
      assert.equal(seen.created?.pollInterval, 200);
      assert.ok(seen.statuses.length >= 2, `statuses: ${seen.kinds.join(", ")}`);
      assert.ok(seen.statuses.every((task) => task.taskId === taskId));
      assert.equal(seen.statuses.at(-1)?.status, "completed");
      assert.equal(text(seen.result), "Computed sum after 0.4 s");
      assert.deepEqual(seen.result?._meta?.[RELATED], { taskId });
      // The server also told the session, by notification, that its task completed.
      await until(() => peer.notified.some((t) => t.taskId === taskId && t.status === "completed"));
      const { tasks } = await peer.client.experimental.tasks.listTasks();
      assert.ok(tasks.some((task) => task.taskId === taskId && task.status === "completed"));
    });

    for (const accept of [true, false]) {
      it(`input_required: the elicitation reaches the SDK's handler (${accept ? "accepted" : "declined"})`, async () => {
        peer.accept = accept;
        const before = peer.elicitations.length;
        const seen = await stream(peer.client, "confirm_delete", { filename: "notes.txt" });
        const taskId = seen.created?.taskId;
        assert.ok(taskId);
        assert.ok(seen.statuses.some((task) => task.status === "input_required"));
        const asked = peer.elicitations.slice(before);
        assert.equal(asked.length, 1);
        assert.equal(asked[0]?.message, "Delete notes.txt?");
        assert.deepEqual((asked[0]?._meta as Record<string, unknown> | undefined)?.[RELATED], {
          taskId,
        });
        assert.equal(text(seen.result), accept ? "Deleted notes.txt" : "Kept notes.txt");
      });
    }

    it("a required task tool runs as a task; its isError result makes the task failed", async () => {
      const seen = await stream(peer.client, "failing_job", {});
      assert.equal(seen.kinds[0], "taskCreated");
      assert.equal(seen.statuses.at(-1)?.status, "failed");
      assert.match(seen.statuses.at(-1)?.statusMessage ?? "", /simulated failure/);
      assert.match(seen.error?.message ?? "", /failed/);
      // tasks/result still hands over the tool's own result.
      const taskId = seen.created!.taskId;
      const result = await peer.client.experimental.tasks.getTaskResult(
        taskId,
        CallToolResultSchema,
      );
      assert.equal(result.isError, true);
      assert.equal(text(result), "The job failed: simulated failure");
    });

    it("a JSON-RPC error ends the task failed, with its message as the status message", async () => {
      const seen = await stream(peer.client, "protocol_error_job", {});
      const last = seen.statuses.at(-1);
      assert.equal(last?.status, "failed");
      assert.match(last?.statusMessage ?? "", /Simulated internal failure/);
      assert.ok(seen.error instanceof McpError);
    });

    it("cancelTask ends a working task as cancelled; a second cancel is -32602", async () => {
      let taskId = "";
      const seen = await stream(peer.client, "slow_compute", { seconds: 30 }, (task) => {
        taskId = task.taskId;
        void peer.client.experimental.tasks.cancelTask(task.taskId);
      });
      assert.equal(seen.statuses.at(-1)?.status, "cancelled");
      assert.match(seen.error?.message ?? "", /cancelled/);
      const again = await peer.client.experimental.tasks.cancelTask(taskId).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(again instanceof McpError);
      assert.equal(again.code, -32602);
      assert.equal((await peer.client.experimental.tasks.getTask(taskId)).status, "cancelled");
    });

    it("an unknown task id is -32602", async () => {
      const error = await peer.client.experimental.tasks.getTask("no-such-task").then(
        () => undefined,
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof McpError);
      assert.equal(error.code, -32602);
    });

    it("reported no stray errors", () => {
      assert.deepEqual(
        peer.errors.map((error) => error.message),
        [],
      );
    });
  });
}

suite("stdio", async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, "--stdio"],
    stderr: "pipe",
  });
  return { transport, stop: async () => {} };
});

suite("legacy Streamable HTTP", async () => {
  const server: ListeningChild = await spawnListening(process.execPath, [
    SERVER,
    "--http",
    "--port",
    "0",
  ]);
  return {
    transport: new StreamableHTTPClientTransport(new URL(server.url)),
    stop: () => stopChild(server.child),
  };
});
