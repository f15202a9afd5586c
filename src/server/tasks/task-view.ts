import type { JsonObject } from "../../jsonrpc/types.js";
import type { TaskRecord } from "./store.js";

/** The Task fields every shape shares (extensions/tasks schema.ts, Task). */
function taskFields(record: TaskRecord, resultType: "task" | "complete"): JsonObject {
  const task: JsonObject = {
    resultType,
    taskId: record.taskId,
    status: record.status,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttlMs: record.ttlMs,
  };
  if (record.pollIntervalMs !== undefined) task.pollIntervalMs = record.pollIntervalMs;
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  return task;
}

/** What tools/call answers when it made a task: flat, and never result/error/inputRequests. */
export function createTaskResult(record: TaskRecord): JsonObject {
  return taskFields(record, "task");
}

/** What tasks/get answers: the DetailedTask variant for the status, resultType "complete". */
export function detailedTask(record: TaskRecord): JsonObject {
  const task = taskFields(record, "complete");
  switch (record.status) {
    case "input_required":
      task.inputRequests = Object.assign({}, record.inputRequests) as JsonObject;
      break;
    case "completed":
      task.result = record.result ?? {};
      break;
    case "failed":
      task.error = (record.error ?? {
        code: -32603,
        message: "Internal error",
      }) as unknown as JsonObject;
      break;
  }
  return task;
}

/**
 * What notifications/tasks carries: the DetailedTask tasks/get would answer at that moment
 * (extensions/tasks/tasks.md, Task Status Notifications), as notification params (no resultType).
 */
export function taskNotification(record: TaskRecord): JsonObject {
  const { resultType: _resultType, ...task } = detailedTask(record);
  return task;
}
