/**
 * Tasks across eras at the gateway. A child and an HTTP client that speak the same form of tasks
 * (both the tasks extension) need nothing: the child's task is relayed (gateway-tasks.ts). When
 * the forms differ (a 2025-11-25 child and a modern client of the extension, or a modern child
 * and a legacy client asking for a task) the gateway runs the task itself, with the server's own
 * task machinery: its handler is the call on the child, which the gateway's client drives to
 * its end in the child's form (polling, answering its questions by asking the task's client),
 * and the HTTP client sees the gateway's task in its own form. The same holds for a legacy child
 * and a legacy client: the child's 2025-11-25 task is not reachable through the gateway's one
 * session with it by another session's ids, so the gateway's own task stands in for it.
 */

import type { McpClient } from "../../client/index.js";
import { takesLegacyToolTasks, taskSupportOf } from "../../client/tasks/legacy.js";
import { isPlainObject } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import type { Tool } from "../../protocol/mcp-types.js";
import type { HandlerContext } from "../../server/context.js";
import type { TaskStore } from "../../server/tasks/store.js";
import { declaresTasks, TASK_METHODS, TASKS_EXTENSION } from "../../server/tasks/wire.js";

export type BridgedSupport = "optional" | "required";

/** Whether the child makes tasks in either form (its capabilities say so). */
export function childTaskForm(child: McpClient): "extension" | "legacy" | undefined {
  const capabilities = (child.serverCapabilities ?? {}) as JsonObject;
  if (child.era === "modern") {
    const extensions = capabilities.extensions;
    return isPlainObject(extensions) && extensions[TASKS_EXTENSION] !== undefined
      ? "extension"
      : undefined;
  }
  return takesLegacyToolTasks(capabilities) ? "legacy" : undefined;
}

/**
 * How the gateway runs a tools/call as its own task, or undefined when it does not: the client
 * and the child speak the extension (relayed as it is), or the child makes no task of this tool.
 * A 2025-11-25 child's tool says so in execution.taskSupport; a modern child decides per call,
 * so each of its tools may be one.
 */
export function bridgedSupport(
  child: McpClient,
  tool: Tool | undefined,
  context: HandlerContext,
): BridgedSupport | undefined {
  const form = childTaskForm(child);
  if (form === undefined) return undefined;
  const clientTakesExtension =
    context.era === "modern" || declaresTasks(context.clientCapabilities);
  if (form === "extension") return clientTakesExtension ? undefined : "optional";
  const support = taskSupportOf(tool);
  return support === "forbidden" ? undefined : support;
}

/**
 * A modern child's tools as a legacy client lists them: each may run as a task (the gateway's),
 * which 2025-11-25 says per tool in execution.taskSupport.
 */
export function withTaskSupport(tools: unknown[]): unknown[] {
  return tools.map((tool) =>
    isPlainObject(tool) && tool.execution === undefined
      ? { ...tool, execution: { taskSupport: "optional" } }
      : tool,
  );
}

/**
 * Whether a tasks/* request is for the gateway's own tasks (not the child's, relayed): every
 * one from a legacy client of 2025-11-25 tasks, and those naming a task the gateway runs.
 */
export async function isGatewayTask(
  method: string,
  params: JsonObject,
  context: HandlerContext,
  store: TaskStore | undefined,
): Promise<boolean> {
  if (!declaresTasks(context.clientCapabilities)) {
    return context.era === "legacy" || !TASK_METHODS.has(method);
  }
  const taskId = params.taskId;
  return (
    typeof taskId === "string" && store !== undefined && (await store.get(taskId)) !== undefined
  );
}

/** A task handle the gateway's own task machinery made (either form): passed on as it is. */
export function isTaskHandle(result: JsonObject): boolean {
  return (
    result.resultType === "task" || (isPlainObject(result.task) && result.content === undefined)
  );
}
