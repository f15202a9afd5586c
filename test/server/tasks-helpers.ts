import type { JsonObject, JsonRpcMessage } from "../../src/jsonrpc/types.js";
import type { McpServer } from "../../src/server/mcp-server.js";
import { TASKS_EXTENSION } from "../../src/server/tasks/wire.js";
import { createMemoryPair } from "../../src/transports/memory.js";

export const MODERN = "2026-07-28";
export const WITH_TASKS: JsonObject = { extensions: { [TASKS_EXTENSION]: {} }, elicitation: {} };

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
