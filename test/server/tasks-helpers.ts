import assert from "node:assert/strict";
import type { JsonObject, JsonRpcMessage } from "../../src/jsonrpc/types.js";
import type { McpServer } from "../../src/server/index.js";
import { TASKS_EXTENSION } from "../../src/server/tasks/wire.js";
import { createMemoryPair } from "../../src/transports/memory.js";

export const MODERN = "2026-07-28";
export const WITH_TASKS: JsonObject = { extensions: { [TASKS_EXTENSION]: {} }, elicitation: {} };

/** The form a task tool "ask" elicits: answer it with { action: "accept", content: { ok } }. */
export const GO_AHEAD_FORM = {
  mode: "form",
  message: "Go ahead?",
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
};

/** "ask": a task-only tool that elicits GO_AHEAD_FORM and returns the answer as JSON. */
export function addGoAheadTool(server: McpServer): void {
  server.tool(
    { name: "ask" },
    async (_args, context) => JSON.stringify(await context.elicit(GO_AHEAD_FORM)),
    { task: { support: "required" } },
  );
}

export interface RpcReply {
  result?: JsonObject;
  error?: { code: number; message: string; data?: JsonObject };
}

/** A raw modern client over an in-memory pair: one request, one reply, capabilities per call. */
export function modernClient(server: McpServer) {
  const [serverSide, clientSide] = createMemoryPair();
  server.connect(serverSide);
  const waiting = new Map<number, (reply: RpcReply) => void>();
  clientSide.start({
    message: (message: JsonRpcMessage) => {
      const reply = message as RpcReply & { id?: number };
      if (typeof reply.id === "number") waiting.get(reply.id)?.(reply);
    },
  });
  let nextId = 0;
  const call = (method: string, params: JsonObject = {}, capabilities: JsonObject = WITH_TASKS) => {
    const id = ++nextId;
    const sent = {
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": capabilities,
        },
      },
    };
    return new Promise<RpcReply>((resolve) => {
      waiting.set(id, resolve);
      void clientSide.send(sent as unknown as JsonRpcMessage);
    });
  };
  /** The result, or throws the error object (as an Error carrying code and data). */
  const ok = async (method: string, params?: JsonObject, capabilities?: JsonObject) => {
    const reply = await call(method, params, capabilities);
    if (reply.error) {
      throw Object.assign(new Error(reply.error.message), reply.error);
    }
    return reply.result!;
  };
  return { call, ok, close: () => clientSide.close() };
}

/** Polls tasks/get until `done(task)` holds (no timing: every poll yields to the server). */
export async function pollUntil(
  client: ReturnType<typeof modernClient>,
  taskId: string,
  done: (task: JsonObject) => boolean,
): Promise<JsonObject> {
  for (let i = 0; i < 10_000; i++) {
    const task = await client.ok("tasks/get", { taskId });
    if (done(task)) return task;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`task ${taskId} never reached the expected state`);
}

/** A raw legacy client: `initialize` with `capabilities`, then requests without `_meta`. */
export async function legacyClient(server: McpServer, capabilities: JsonObject) {
  const [serverSide, clientSide] = createMemoryPair();
  server.connect(serverSide);
  const waiting = new Map<number, (reply: RpcReply) => void>();
  clientSide.start({
    message: (message: JsonRpcMessage) => {
      const reply = message as RpcReply & { id?: number };
      if (typeof reply.id === "number") waiting.get(reply.id)?.(reply);
    },
  });
  let nextId = 0;
  const call = (method: string, params: JsonObject = {}) => {
    const id = ++nextId;
    return new Promise<RpcReply>((resolve) => {
      waiting.set(id, resolve);
      void clientSide.send({ jsonrpc: "2.0", id, method, params } as unknown as JsonRpcMessage);
    });
  };
  const init = await call("initialize", {
    protocolVersion: "2025-11-25",
    capabilities,
    clientInfo: { name: "legacy", version: "1" },
  });
  await clientSide.send({
    jsonrpc: "2.0",
    method: "notifications/initialized",
  } as unknown as JsonRpcMessage);
  return { call, init: init.result!, close: () => clientSide.close() };
}

/**
 * "ask" (addGoAheadTool) called on `a` and parked there; `update()` answers it on `b` (it may
 * be called again), `finished()` waits until the task completed with that answer and a runs
 * nothing any more, then closes both clients.
 */
export async function askedOnAnsweredElsewhere(a: McpServer, b: McpServer) {
  const onA = modernClient(a);
  const onB = modernClient(b);
  const created = await onA.ok("tools/call", { name: "ask" });
  const taskId = created.taskId as string;
  const parked = await pollUntil(onB, taskId, (task) => task.status === "input_required");
  const [key] = Object.keys(parked.inputRequests as object);
  const update = () =>
    onB.ok("tasks/update", {
      taskId,
      inputResponses: { [key!]: { action: "accept", content: { ok: true } } },
    });
  const finished = async () => {
    const done = await pollUntil(onB, taskId, (task) => task.status === "completed");
    const text = (done.result as { content: { text: string }[] }).content[0]!.text;
    assert.deepEqual(JSON.parse(text), { action: "accept", content: { ok: true } });
    assert.equal(a.tasks?.running, 0);
    onA.close();
    onB.close();
  };
  return { taskId, update, finished };
}
