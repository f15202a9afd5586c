import type { JsonObject } from "../../jsonrpc/types.js";

/**
 * Wraps a caller's onTaskStatus so that it hears changes, not polls: a task is read every
 * pollIntervalMs, and most reads say what the one before said. A change is a new status or a
 * new statusMessage. `last()` is the status last passed on, if any.
 */
export function statusChanges(onStatus: ((task: JsonObject) => void) | undefined): {
  report(task: JsonObject): void;
  last(): unknown;
} {
  let status: unknown;
  let message: unknown;
  let reported = false;
  return {
    report(task) {
      if (onStatus === undefined) return;
      if (reported && task.status === status && task.statusMessage === message) return;
      reported = true;
      status = task.status;
      message = task.statusMessage;
      onStatus(task);
    },
    last: () => status,
  };
}
