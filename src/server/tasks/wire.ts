import type { JsonObject } from "../../jsonrpc/types.js";
import type { ClientCapabilities } from "../../protocol/mcp-types.js";

/**
 * The tasks extension's wire names, in one place (extensions/tasks/tasks.md). Older SEP drafts
 * used ttlSeconds, requestState on tasks and notifications/tasks/status: none of that is here.
 */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The methods the extension adds; tasks/result and tasks/list are gone (-32601). */
export const TASK_METHODS = new Set(["tasks/get", "tasks/update", "tasks/cancel"]);

export function isTerminal(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/** Whether this request's (modern) or session's (legacy) capabilities declare the extension. */
export function declaresTasks(capabilities: ClientCapabilities): boolean {
  const extensions = capabilities.extensions as JsonObject | undefined;
  return typeof extensions === "object" && extensions !== null && TASKS_EXTENSION in extensions;
}

/** The client capabilities a task-only tool or a tasks/* call needs (-32021's shape). */
export function tasksRequirement(): JsonObject {
  return { extensions: { [TASKS_EXTENSION]: {} } };
}
