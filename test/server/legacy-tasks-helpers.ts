import type { JsonObject, JsonRpcMessage } from "../../src/jsonrpc/types.js";
import type { McpServer } from "../../src/server/index.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import { assertLegacyShape } from "../helpers/legacy-schema.js";
import type { RpcReply } from "./tasks-helpers.js";

export const LEGACY = "2025-11-25";

/** What a server sent that was not a reply: requests (with id) and notifications. */
export interface Incoming {
  id?: number | string;
  method: string;
  params?: JsonObject;
}

/**
 * A raw 2025-11-25 client over an in-memory pair that checks every message the server sends
 * against the spec's schema, answers server requests with `answer` (its result, or an error
 * object when it returns { error }), and keeps the notifications it hears.
 */
export async function legacyTaskClient(
  server: McpServer,
  capabilities: JsonObject = { elicitation: {} },
  answer: (
    request: Incoming,
  ) => JsonObject | { error: { code: number; message: string } } = () => ({
    action: "decline",
  }),
) {
  const [serverSide, clientSide] = createMemoryPair();
  server.connect(serverSide);
  const waiting = new Map<number, (reply: RpcReply) => void>();
  const notifications: Incoming[] = [];
  const requests: Incoming[] = [];
  const listeners = new Set<() => void>();
  clientSide.start({
    message: (message: JsonRpcMessage) => {
      const raw = message as unknown as RpcReply & Incoming & { id?: number };
      if (raw.method === undefined) {
        if (raw.error) assertLegacyShape("JSONRPCErrorResponse", raw);
        waiting.get(raw.id!)?.(raw);
        return;
      }
      if (raw.id === undefined) {
        assertLegacyShape("ServerNotification", raw);
        notifications.push(raw);
      } else {
        assertLegacyShape("ServerRequest", raw);
        requests.push(raw);
        const reply = answer(raw);
        void clientSide.send({
          jsonrpc: "2.0",
          id: raw.id,
          ...("error" in reply ? { error: reply.error } : { result: reply }),
        } as unknown as JsonRpcMessage);
      }
      for (const listener of [...listeners]) listener();
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
  /** The result (checked as `shape`), or throws the error object as an Error with its code. */
  const ok = async (method: string, params: JsonObject, shape: string) => {
    const reply = await call(method, params);
    if (reply.error) throw Object.assign(new Error(reply.error.message), reply.error);
    assertLegacyShape(shape, reply.result);
    return reply.result!;
  };
  /** Resolves once `done()` holds, re-checked after every message from the server. */
  const until = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      if (done()) return resolve();
      const check = () => {
        if (!done()) return;
        listeners.delete(check);
        resolve();
      };
      listeners.add(check);
    });
  const init = await ok(
    "initialize",
    { protocolVersion: LEGACY, capabilities, clientInfo: { name: "legacy", version: "1" } },
    "InitializeResult",
  );
  await clientSide.send({
    jsonrpc: "2.0",
    method: "notifications/initialized",
  } as unknown as JsonRpcMessage);
  return { call, ok, until, init, notifications, requests, close: () => clientSide.close() };
}
