/**
 * Where `--otel` plugs into the clients and servers the verbs make. core/telemetry.ts fills the
 * hooks once the SDK is up; without --otel they stay empty and nothing here loads OpenTelemetry
 * (this file imports types only).
 */

import type { McpClient } from "../../client/index.js";
import type { ClientMiddleware } from "../../client/middleware-chain.js";
import type { JsonRpcMessage } from "../../jsonrpc/types.js";
import type { McpServer } from "../../server/index.js";
import type { ServerMiddleware } from "../../server/middleware-chain.js";
import type { TaskRunner } from "../../server/tasks/manager.js";

let clientMiddleware: ClientMiddleware | undefined;
let serverMiddleware: ServerMiddleware | undefined;
let sessionRecorder: ((client: McpClient) => void) | undefined;
let relayObserver: (() => RelayObserver) | undefined;
let taskRunner: TaskRunner | undefined;

/** What traces the messages a relay (tap) forwards without a client or server of its own. */
export interface RelayObserver {
  message(direction: "c2s" | "s2c", message: JsonRpcMessage): void;
  close(): void;
}

/** Called by --otel: every client and server made from now on is traced. */
export function setInstrumentation(hooks: {
  client: ClientMiddleware;
  server: ServerMiddleware;
  /** Called once a verb's client is connected: mcp.client.session.duration until it closes. */
  clientSession: (client: McpClient) => void;
  /** Makes the tracer of one relay's stdio traffic (tap). */
  relay: () => RelayObserver;
  /** Runs each task a server of the command runs itself (the gateway's bridged tasks). */
  taskRuns: TaskRunner;
}): void {
  clientMiddleware = hooks.client;
  serverMiddleware = hooks.server;
  sessionRecorder = hooks.clientSession;
  relayObserver = hooks.relay;
  taskRunner = hooks.taskRuns;
}

/** TasksOptions for a server the command makes: its task runs traced under --otel. */
export function tracedTasks(): { tasks: { runTask: TaskRunner } } | Record<string, never> {
  return taskRunner ? { tasks: { runTask: taskRunner } } : {};
}

/** The tracer for a relay's messages under --otel; undefined without. */
export function observeRelay(): RelayObserver | undefined {
  return relayObserver?.();
}

/** Tells --otel that a verb's client finished its handshake (its session starts now). */
export function clientConnected(client: McpClient): void {
  sessionRecorder?.(client);
}

/** Adds the tracing middleware to a verb's client (first, so it is outermost). */
export function instrumentClient<C extends McpClient>(client: C): C {
  if (clientMiddleware) client.use(clientMiddleware);
  return client;
}

/** Adds the tracing middleware to a server the command runs (the gateway's HTTP face). */
export function instrumentServer<S extends McpServer>(server: S): S {
  if (serverMiddleware) server.use(serverMiddleware);
  return server;
}
