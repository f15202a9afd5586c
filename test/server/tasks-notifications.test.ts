/**
 * notifications/tasks on subscriptions/listen (extensions/tasks/tasks.md, Task Status
 * Notifications), over Streamable HTTP: a stream whose taskIds filter names a task hears each
 * of its status changes, in order, up to the terminal one; a stream not naming it, or one of
 * another principal naming it, hears nothing of it. Each stream also asks for tool list
 * changes, and a tool registered at the end marks where every stream must have caught up:
 * what a stream carried before that marker is all it will ever carry about the task.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { McpServer } from "../../src/server/index.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";
import { mcpHeaders, post, SseMessages, type Wire } from "../transports/http/http-helpers.js";
import { MODERN, WITH_TASKS } from "./tasks-helpers.js";

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
const FORM = {
  mode: "form",
  message: "Approve?",
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
};

let nextId = 1;

function body(method: string, params: Record<string, unknown>, capabilities: object = WITH_TASKS) {
  return {
    jsonrpc: "2.0",
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
      },
    },
  };
}

function send(url: string, token: string, message: Record<string, unknown>): Promise<Response> {
  const params = message.params as Record<string, unknown>;
  const headers: Record<string, string> = {
    ...mcpHeaders(message),
    Authorization: `Bearer ${token}`,
  };
  if (typeof params.taskId === "string") headers["Mcp-Name"] = params.taskId;
  return post(url, message, headers);
}

async function call(url: string, token: string, method: string, params: Record<string, unknown>) {
  const response = await send(url, token, body(method, params));
  const text = await response.text();
  const reply = text.startsWith("{") ? JSON.parse(text) : JSON.parse(text.split("data: ").pop()!);
  assert.ok(reply.result, `${method}: ${text}`);
  return reply.result as Wire;
}

/** The first JSON-RPC message of a reply, JSON or SSE; an SSE stream is closed after it. */
async function firstMessage(response: Response): Promise<Wire> {
  if (response.headers.get("content-type")?.startsWith("application/json")) {
    return response.json();
  }
  const stream = new SseMessages(response);
  const message = await stream.next();
  await stream.cancel();
  return message;
}

/** Opens a listen stream and reads its acknowledgement. */
async function listen(url: string, token: string, notifications: Record<string, unknown>) {
  const message = body("subscriptions/listen", { notifications });
  const response = await send(url, token, message);
  assert.equal(response.status, 200);
  const stream = new SseMessages(response);
  const ack = await stream.next();
  assert.equal(ack?.method, "notifications/subscriptions/acknowledged");
  return { stream, id: message.id, ack: ack.params.notifications as Wire };
}

/** Every message before the tools list_changed marker. */
async function untilMarker(stream: SseMessages): Promise<Wire[]> {
  const seen: Wire[] = [];
  for (;;) {
    const message = await stream.next();
    assert.ok(message, "the stream ended before the marker");
    if (message.method === "notifications/tools/list_changed") return seen;
    seen.push(message);
  }
}

async function pollUntil(url: string, token: string, taskId: string, status: string) {
  for (let i = 0; i < 10_000; i++) {
    const task = await call(url, token, "tasks/get", { taskId });
    if (task.status === status) return task;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.fail(`task ${taskId} never reached ${status}`);
}

describe("tasks: notifications/tasks on subscriptions/listen (HTTP)", () => {
  let served: ServedHttp;
  let server: McpServer;
  let openGate!: () => void;
  const gate = new Promise<void>((resolve) => {
    openGate = resolve;
  });

  before(async () => {
    server = new McpServer({
      serverInfo: { name: "tasks-notify", version: "1" },
      onError: () => {},
    });
    server.tool(
      { name: "approve" },
      async (_args, context) => {
        // Waits until the test's streams are listening, so that no change can precede them.
        await gate;
        const answer = await context.elicit(FORM);
        return `approved: ${JSON.stringify(answer.content)}`;
      },
      { task: { support: "required" } },
    );
    served = await serveHttp(server, {
      authenticate: (request) => {
        const auth = request.headers.get("authorization");
        return auth ? { sub: auth.slice("Bearer ".length) } : new Response(null, { status: 401 });
      },
    });
  });
  after(() => served.close());

  it("the owner's stream naming the task gets every status up to the terminal one; others get none", async () => {
    const url = served.url;
    const created = await call(url, "alice", "tools/call", { name: "approve", arguments: {} });
    assert.equal(created.resultType, "task");
    const taskId = created.taskId as string;

    const owner = await listen(url, "alice", { taskIds: [taskId], toolsListChanged: true });
    assert.deepEqual(owner.ack.taskIds, [taskId], "the acknowledgement names the task");
    const unnamed = await listen(url, "alice", { taskIds: ["another"], toolsListChanged: true });
    const stranger = await listen(url, "mallory", { taskIds: [taskId], toolsListChanged: true });

    openGate();
    const parked = await pollUntil(url, "alice", taskId, "input_required");
    const [key] = Object.keys(parked.inputRequests);
    await call(url, "alice", "tasks/update", {
      taskId,
      inputResponses: { [key!]: { action: "accept", content: { ok: true } } },
    });
    const done = await pollUntil(url, "alice", taskId, "completed");
    // The marker: a tool list change every stream asked for, published after the terminal status.
    server.tool({ name: "marker" }, () => "marker");

    const heard = await untilMarker(owner.stream);
    assert.deepEqual(
      heard.map((message) => [message.method, message.params.status]),
      [
        ["notifications/tasks", "input_required"],
        ["notifications/tasks", "working"],
        ["notifications/tasks", "completed"],
      ],
    );
    for (const message of heard) {
      assert.equal(message.params.taskId, taskId);
      assert.equal(message.params._meta[SUBSCRIPTION_ID], owner.id, "tagged with the listen id");
      assert.equal(
        message.params.resultType,
        undefined,
        "notification params are a task, not a result",
      );
    }
    assert.deepEqual(heard[0].params.inputRequests, parked.inputRequests);
    // The terminal notification is what tasks/get answers (a DetailedTask with the result inlined).
    const { resultType: _resultType, _meta: _resultMeta, ...expected } = done;
    const { _meta, ...terminal } = heard[2].params;
    assert.deepEqual(terminal, expected);

    assert.deepEqual(await untilMarker(unnamed.stream), [], "a stream not naming the task");
    assert.deepEqual(await untilMarker(stranger.stream), [], "another principal's stream");
    await Promise.all([owner, unnamed, stranger].map(({ stream }) => stream.cancel()));
  });

  it("a listen asking for task ids without declaring the extension gets -32021", async () => {
    const response = await send(
      served.url,
      "alice",
      body("subscriptions/listen", { notifications: { taskIds: ["x"] } }, {}),
    );
    const reply = await firstMessage(response);
    assert.equal(reply.error?.code, -32021, JSON.stringify(reply));
    assert.deepEqual(reply.error.data.requiredCapabilities, {
      extensions: { "io.modelcontextprotocol/tasks": {} },
    });
  });

  it("a malformed taskIds filter is -32602", async () => {
    const response = await send(
      served.url,
      "alice",
      body("subscriptions/listen", { notifications: { taskIds: "not-a-list" } }),
    );
    const reply = await firstMessage(response);
    assert.equal(reply.error?.code, -32602, JSON.stringify(reply));
  });
});
