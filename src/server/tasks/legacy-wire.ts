import type { JsonObject } from "../../jsonrpc/types.js";
import { taskOwner, taskQuotaOwner } from "./owner.js";
import type { TaskRecord } from "./store.js";

/**
 * The tasks of the 2025-11-25 revision (basic/utilities/tasks.mdx), served from the same
 * records as the extension: the wire names that differ (ttl, pollInterval, a `task` wrapper).
 */
export const LEGACY_TASK_METHODS = new Set([
  "tasks/get",
  "tasks/result",
  "tasks/list",
  "tasks/cancel",
]);

/** The _meta key tying a message to its task (tasks.mdx, Associating Task-Related Messages). */
export const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** The `tasks` server capability: list only where the store can list an owner's tasks. */
export function legacyTasksCapability(canList: boolean): JsonObject {
  return {
    ...(canList ? { list: {} } : {}),
    cancel: {},
    requests: { tools: { call: {} } },
  };
}

/** The 2025-11-25 Task object for a record. */
export function legacyTask(record: TaskRecord): JsonObject {
  const task: JsonObject = {
    taskId: record.taskId,
    status: record.status,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttl: record.ttlMs,
  };
  if (record.pollIntervalMs !== undefined) task.pollInterval = record.pollIntervalMs;
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  return toolErrorAsFailed(task, record.status === "completed" ? record.result : undefined);
}

/** The same from the extension's notification params (what a taskStatus event carries). */
export function legacyTaskFromNotification(task: JsonObject): JsonObject {
  const legacy: JsonObject = {
    taskId: task.taskId as string,
    status: task.status as string,
    createdAt: task.createdAt as string,
    lastUpdatedAt: task.lastUpdatedAt as string,
    ttl: (task.ttlMs ?? null) as number | null,
  };
  if (task.pollIntervalMs !== undefined) legacy.pollInterval = task.pollIntervalMs;
  if (task.statusMessage !== undefined) legacy.statusMessage = task.statusMessage;
  const result = task.status === "completed" ? (task.result as JsonObject | undefined) : undefined;
  return toolErrorAsFailed(legacy, result);
}

/**
 * The two forms disagree on a tool result with isError: the extension calls that task
 * completed (tasks.md, Result Retrieval), 2025-11-25 calls it failed (tasks.mdx, Task Status:
 * "this includes cases where the tool call result has isError set to true"). tasks/result
 * still hands over the tool's result.
 */
function toolErrorAsFailed(task: JsonObject, result: JsonObject | undefined): JsonObject {
  if (result?.isError !== true) return task;
  task.status = "failed";
  task.statusMessage ??= toolErrorMessage(result);
  return task;
}

/** "The tool reported an error", with the first text of its content when there is one. */
function toolErrorMessage(result: JsonObject): string {
  const content = Array.isArray(result.content) ? result.content : [];
  const first = content.find(
    (block): block is JsonObject =>
      typeof block === "object" && block !== null && (block as JsonObject).type === "text",
  );
  const text = typeof first?.text === "string" ? first.text.slice(0, 200) : "";
  return text ? `The tool reported an error: ${text}` : "The tool reported an error";
}

/**
 * Whose a legacy task is: the authenticated principal (as for the extension), else the session
 * that made it, so that an anonymous session sees only its own tasks (tasks/list included).
 */
export function legacyTaskOwner(
  principal: unknown,
  session: { readonly sessionId?: string } | undefined,
): string {
  if (principal !== undefined && principal !== null) return taskOwner(principal);
  return taskQuotaOwner(undefined, session);
}
