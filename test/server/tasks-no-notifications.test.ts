/**
 * "notifications/progress and notifications/message ... are not supported on tasks"
 * (extensions/tasks/tasks.md, Task Status Notifications): a handler running as a task may call
 * context.progress and context.log, and nothing of it reaches the client, in either era. The
 * same handler as a plain call sends both, so the request did ask for them.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonObject, JsonRpcMessage } from "../../src/jsonrpc/types.js";
import { META } from "../../src/protocol/meta.js";
import type { HandlerContext } from "../../src/server/context.js";
import { McpServer } from "../../src/server/index.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import { MODERN, modernClient, pollUntil, WITH_TASKS } from "./tasks-helpers.js";

function chattyServer() {
  const server = new McpServer({ serverInfo: { name: "chatty", version: "1" }, onError: () => {} });
  const chatty = async (_args: JsonObject, context: HandlerContext) => {
    await context.progress(1, 2, "half way");
    await context.log.info("hello from the handler");
    await context.progress(2, 2, "done");
    return "finished";
  };
  server.tool({ name: "as-task" }, chatty, { task: { support: "required" } });
  server.tool({ name: "plain" }, chatty);
  return server;
}

/** A raw peer over an in-memory pair that keeps every message the server sends. */
function rawPeer(server: McpServer) {
  const [serverSide, clientSide] = createMemoryPair();
  server.connect(serverSide);
  const received: JsonRpcMessage[] = [];
  const waiting = new Map<number, (message: JsonObject) => void>();
  clientSide.start({
    message: (message: JsonRpcMessage) => {
      received.push(message);
      const id = (message as { id?: unknown }).id;
      if (typeof id === "number" && !("method" in message))
        waiting.get(id)?.(message as unknown as JsonObject);
    },
  });
  let nextId = 100;
  const send = (method: string, params: JsonObject) => {
    const id = ++nextId;
    return new Promise<JsonObject>((resolve) => {
      waiting.set(id, resolve);
      void clientSide.send({ jsonrpc: "2.0", id, method, params } as JsonRpcMessage);
    });
  };
  const notify = (method: string) => clientSide.send({ jsonrpc: "2.0", method } as JsonRpcMessage);
  const sent = (method: string) =>
    received.filter((message) => "method" in message && message.method === method);
  return { send, notify, sent, close: () => clientSide.close() };
}

const modernMeta = (token: string): JsonObject => ({
  [META.protocolVersion]: MODERN,
  [META.clientCapabilities]: WITH_TASKS,
  [META.logLevel]: "debug",
  progressToken: token,
});

describe("a handler running as a task sends no progress and no log notifications", () => {
  it("modern: the plain call sends both; the task sends neither, before or after it ends", async () => {
    const server = chattyServer();
    const peer = rawPeer(server);
    const plain = await peer.send("tools/call", { name: "plain", _meta: modernMeta("p") });
    assert.equal((plain.result as JsonObject).isError, undefined);
    assert.equal(peer.sent("notifications/progress").length, 2);
    assert.equal(peer.sent("notifications/message").length, 1);

    const created = await peer.send("tools/call", { name: "as-task", _meta: modernMeta("t") });
    const taskId = (created.result as JsonObject).taskId as string;
    assert.equal(typeof taskId, "string");
    await pollUntil(modernClient(server), taskId, (task) => task.status === "completed");
    assert.equal(peer.sent("notifications/progress").length, 2, "only the plain call's");
    assert.equal(peer.sent("notifications/message").length, 1, "only the plain call's");
    peer.close();
    await server.close();
  });

  it("legacy: the same, in a session that set its log level and declared the extension", async () => {
    const server = chattyServer();
    const peer = rawPeer(server);
    await peer.send("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: WITH_TASKS,
      clientInfo: { name: "raw", version: "1" },
    });
    await peer.notify("notifications/initialized");
    await peer.send("logging/setLevel", { level: "debug" });
    await peer.send("tools/call", { name: "plain", _meta: { progressToken: "p" } });
    assert.equal(peer.sent("notifications/progress").length, 2);
    assert.equal(peer.sent("notifications/message").length, 1);

    const created = await peer.send("tools/call", {
      name: "as-task",
      _meta: { progressToken: "t" },
    });
    const taskId = (created.result as JsonObject).taskId as string;
    assert.equal(typeof taskId, "string");
    for (let status = ""; status !== "completed"; ) {
      const got = await peer.send("tasks/get", { taskId });
      status = (got.result as JsonObject).status as string;
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(peer.sent("notifications/progress").length, 2, "only the plain call's");
    assert.equal(peer.sent("notifications/message").length, 1, "only the plain call's");
    peer.close();
    await server.close();
  });
});
