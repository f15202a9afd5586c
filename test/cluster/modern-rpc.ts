/** Modern (2026-07-28) requests over HTTP to one chosen instance, for cluster tests. */

import assert from "node:assert/strict";
import { encodeHeaderValue } from "../../src/protocol/http-headers.js";
import { TASKS_EXTENSION } from "../../src/server/tasks/wire.js";
import { meta, parseSse, post, SseMessages, type Wire } from "../transports/http/http-helpers.js";

/** What the cluster tests' client declares: elicitation and the tasks extension. */
export const CAPABILITIES = { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } };

let nextId = 0;

export function body(method: string, params: Record<string, unknown> = {}) {
  return {
    jsonrpc: "2.0",
    id: ++nextId,
    method,
    params: {
      ...params,
      _meta: meta({ "io.modelcontextprotocol/clientCapabilities": CAPABILITIES }),
    },
  };
}

/** The JSON-RPC reply (result or error) to one request, whether sent as JSON or as SSE. */
export async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Wire> {
  const sent = body(method, params);
  // The tasks methods name their task in Mcp-Name (mcpHeaders covers the others).
  const headers: Record<string, string> = method.startsWith("tasks/")
    ? { "Mcp-Name": encodeHeaderValue(String(params.taskId)) }
    : {};
  const response = await post(url, sent, headers);
  const text = await response.text();
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
    const reply = parseSse(text).messages.find((message: Wire) => message.id === sent.id);
    if (!reply) throw new Error(`no reply to ${method} in the stream: ${text}`);
    return reply;
  }
  if (!text.startsWith("{")) throw new Error(`${method}: HTTP ${response.status} ${text}`);
  return JSON.parse(text);
}

/** The result, or throws with the error. */
export async function ok(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Wire> {
  const reply = await rpc(url, method, params);
  if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

export function callTool(url: string, name: string, args: Record<string, unknown> = {}) {
  return ok(url, "tools/call", { name, arguments: args });
}

/** Polls tasks/get on `url` until `done(task)`; every poll is a real round trip. */
export async function pollTask(url: string, taskId: string, done: (task: Wire) => boolean) {
  for (let i = 0; i < 500; i++) {
    const task = await ok(url, "tasks/get", { taskId });
    if (done(task)) return task;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`task ${taskId} never reached the expected state`);
}

/** The resource the everything example lets a test announce updates of. */
export const WATCHED = "test://watched-resource";

/** Opens a listen stream (tool list changes, WATCHED's updates) on `url`, once acknowledged. */
export async function listen(url: string) {
  const controller = new AbortController();
  const response = await post(
    url,
    body("subscriptions/listen", {
      notifications: { toolsListChanged: true, resourceSubscriptions: [WATCHED] },
    }),
    {},
    controller.signal,
  );
  assert.equal(response.status, 200);
  const stream = new SseMessages(response);
  const first = await stream.next();
  assert.equal(first?.method, "notifications/subscriptions/acknowledged");
  /** The next notification that `matches`, skipping others. */
  const next = async (matches: (message: Wire) => boolean): Promise<Wire> => {
    for (;;) {
      const message = await stream.next();
      assert.ok(message, "the listen stream ended");
      if (matches(message)) return message;
    }
  };
  return { next, close: () => controller.abort() };
}
