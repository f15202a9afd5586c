import { isPlainObject, LocalError } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import { delay } from "../../platform/delay.js";
import { ignoring } from "../../text/ignored-error.js";
import { InvalidResultError } from "../results.js";
import { statusChanges } from "./status.js";

/**
 * The client side of 2025-11-25 tasks (basic/utilities/tasks.mdx): when a legacy tools/call
 * goes as a task, and driving one to its result. Statuses are shown to callers in the
 * extension's field names (ttlMs, pollIntervalMs) so they need not care which form ran.
 */

type Send = (method: string, params: JsonObject, signal?: AbortSignal) => Promise<JsonObject>;

const DEFAULT_POLL_MS = 1000;
const ENDED = new Set<unknown>(["completed", "failed", "cancelled"]);
const MIN_POLL_MS = 10;

/** Whether a legacy server takes task-augmented tools/call (capabilities.tasks.requests.tools.call). */
export function takesLegacyToolTasks(capabilities: JsonObject | undefined): boolean {
  const tasks = capabilities?.tasks;
  if (!isPlainObject(tasks) || !isPlainObject(tasks.requests)) return false;
  const tools = tasks.requests.tools;
  return isPlainObject(tools) && isPlainObject(tools.call);
}

/** A tool's execution.taskSupport as tools/list showed it ("forbidden" when absent). */
export function taskSupportOf(tool: unknown): "forbidden" | "optional" | "required" {
  if (!isPlainObject(tool) || !isPlainObject(tool.execution)) return "forbidden";
  const support = tool.execution.taskSupport;
  return support === "optional" || support === "required" ? support : "forbidden";
}

/** A 2025-11-25 Task in the extension's names (what onTaskStatus and client.tasks.get give). */
export function fromLegacyTask(task: JsonObject): JsonObject {
  const { ttl, pollInterval, ...rest } = task;
  const view: JsonObject = { ...rest, ttlMs: ttl ?? null };
  if (typeof pollInterval === "number") view.pollIntervalMs = pollInterval;
  return view;
}

/**
 * Drives a legacy CreateTaskResult to its end: polls tasks/get at the server's pollInterval
 * and, once the task needs input or has ended, asks tasks/result, which blocks until the end
 * while the server sends its elicitation/sampling requests on the session (answered by the
 * client's handlers as any server request). An abort of `signal` sends tasks/cancel.
 */
export async function awaitLegacyTask(
  created: JsonObject,
  send: Send,
  options: { signal?: AbortSignal; onStatus?: (task: JsonObject) => void },
  cancelled: (taskId: string) => Error,
): Promise<JsonObject> {
  const first = created.task;
  if (!isPlainObject(first) || typeof first.taskId !== "string" || first.taskId === "") {
    throw new InvalidResultError("tools/call", created, "a CreateTaskResult needs task.taskId");
  }
  const taskId = first.taskId;
  const { signal } = options;
  const changes = statusChanges(options.onStatus);
  // tasks/result brings the end but not the status it ended in: read that once, for a caller
  // who follows the statuses. A failure to read it changes nothing about the result.
  const reportEnd = async () => {
    if (options.onStatus === undefined || signal?.aborted || ENDED.has(changes.last())) return;
    const end = await send("tasks/get", { taskId }).catch(ignoring("reading a task's end"));
    if (end !== undefined) changes.report(fromLegacyTask(end));
  };
  let task = first;
  try {
    for (;;) {
      changes.report(fromLegacyTask(task));
      if (task.status === "cancelled") throw cancelled(taskId);
      if (task.status !== "working") {
        try {
          return await send("tasks/result", { taskId }, signal);
        } finally {
          await reportEnd();
        }
      }
      const interval = typeof task.pollInterval === "number" ? task.pollInterval : DEFAULT_POLL_MS;
      await delay(Math.max(MIN_POLL_MS, interval), signal);
      task = await send("tasks/get", { taskId }, signal);
    }
  } catch (error) {
    if (signal?.aborted) {
      await send("tasks/cancel", { taskId }).catch(ignoring("cancelling a legacy task"));
      throw new LocalError("aborted", `the call was aborted; task ${taskId} was cancelled`, {
        cause: error,
      });
    }
    throw error;
  }
}
