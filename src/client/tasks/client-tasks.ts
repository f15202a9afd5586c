import { isPlainObject, JsonRpcError, LocalError } from "../../jsonrpc/errors.js";
import type { JsonObject, JsonRpcErrorObject } from "../../jsonrpc/types.js";
import { delay } from "../../platform/delay.js";
import { ignoring } from "../../text/ignored-error.js";
import { answerInputRequests } from "../mrtr.js";
import { InvalidResultError } from "../results.js";
import type { ClientHandlers } from "../types.js";
import { fromLegacyTask } from "./legacy.js";
import { statusChanges } from "./status.js";

// The tasks options, added to the core's option types here: a program that sees ClientTasks
// (mcpwire/client exports it) sees them.
declare module "../types.js" {
  interface McpClientOptions {
    /**
     * Declare the tasks extension on modern requests. Default: yes, unless `capabilities` is
     * given (those are then sent as they are); true adds it to them. Tool calls the server
     * turns into tasks are polled to their end by callTool.
     */
    tasks?: boolean;
  }
  interface CallOptions {
    /**
     * tools/call answered with a task (the tasks extension): true returns the CreateTaskResult
     * as it came (drive it with client.tasks); by default the call waits for the final result.
     */
    returnTaskHandle?: boolean;
    /**
     * tools/call on a legacy server with 2025-11-25 tasks: also run a tool whose
     * execution.taskSupport is "optional" as a task (`ttlMs`: the lifetime asked for).
     * "required" ones always are; modern servers (the extension) decide themselves.
     */
    task?: boolean | { ttlMs?: number };
    /** Each status of a task the call waits for (working, input_required, ...). */
    onTaskStatus?: (task: JsonObject) => void;
  }
}

/** The tasks extension's identifier (io.modelcontextprotocol/tasks). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** When a server gives no pollIntervalMs; and the least we wait, whatever it says. */
const DEFAULT_POLL_MS = 1000;
const MIN_POLL_MS = 10;

type Send = (method: string, params: JsonObject, signal?: AbortSignal) => Promise<JsonObject>;

/** A task that ended cancelled (by this client, another, or the server). */
export class TaskCancelledError extends Error {
  override name = "TaskCancelledError";
  constructor(readonly taskId: string) {
    super(`task ${taskId} was cancelled`);
  }
}

/** `client.tasks`: the extension's methods, for apps that keep a task handle themselves. */
export class ClientTasks {
  /** `legacy`: whether the server speaks 2025-11-25 tasks (a legacy session) right now. */
  constructor(
    private readonly send: Send,
    private readonly legacy: () => boolean = () => false,
  ) {}

  /**
   * tasks/get: the task now (with inputRequests, result or error for its status). From a
   * legacy server: its Task in the extension's field names (ttlMs, pollIntervalMs), no result.
   */
  async get(taskId: string, signal?: AbortSignal): Promise<JsonObject> {
    const task = await this.send("tasks/get", { taskId }, signal);
    return this.legacy() ? fromLegacyTask(task) : task;
  }

  /** tasks/update: answers to some or all of the task's outstanding inputRequests. */
  async update(taskId: string, inputResponses: JsonObject, signal?: AbortSignal): Promise<void> {
    if (this.legacy()) {
      throw new Error(
        "a 2025-11-25 server takes answers through tasks/result (client.tasks.result), not tasks/update",
      );
    }
    await this.send("tasks/update", { taskId, inputResponses }, signal);
  }

  /**
   * tasks/result (2025-11-25 servers only): waits for the task to end and returns the tool's
   * result (or throws its error); meanwhile the server's questions reach the client's handlers.
   */
  result(taskId: string, signal?: AbortSignal): Promise<JsonObject> {
    return this.send("tasks/result", { taskId }, signal);
  }

  /** tasks/list (2025-11-25 servers that offer it): one page of this client's tasks. */
  async list(cursor?: string, signal?: AbortSignal): Promise<JsonObject> {
    const page = await this.send("tasks/list", cursor === undefined ? {} : { cursor }, signal);
    const tasks = Array.isArray(page.tasks) ? page.tasks : [];
    return {
      ...page,
      tasks: tasks.map((task) => (isPlainObject(task) ? fromLegacyTask(task) : task)),
    };
  }

  /** tasks/cancel: asks the server to stop the task (cooperative; see tasks.md). */
  async cancel(taskId: string, signal?: AbortSignal): Promise<void> {
    await this.send("tasks/cancel", { taskId }, signal);
  }
}

export interface TaskWait {
  handlers: ClientHandlers;
  signal?: AbortSignal;
  /** CallOptions.origin, for the handlers. */
  origin?: unknown;
  /** Each change of the task's status or statusMessage while waiting, once (the CLI shows them). */
  onStatus?: (task: JsonObject) => void;
}

/**
 * Drives a CreateTaskResult to its end, as callTool does by default: polls tasks/get at the
 * server's pollIntervalMs, answers new inputRequests through the client's handlers (each key
 * once), and returns the tool's result. A failed task throws its JSON-RPC error; an abort of
 * the caller's signal cancels the task on the server before it rejects.
 */
export async function awaitTask(
  created: JsonObject,
  tasks: ClientTasks,
  wait: TaskWait,
): Promise<JsonObject> {
  const taskId = created.taskId;
  if (typeof taskId !== "string" || taskId === "") {
    throw new InvalidResultError("tools/call", created, "a CreateTaskResult needs a taskId");
  }
  const { signal } = wait;
  const answered = new Set<string>();
  const changes = statusChanges(wait.onStatus);
  let task = created;
  try {
    for (;;) {
      changes.report(task);
      switch (task.status) {
        case "completed":
          if (!isPlainObject(task.result)) {
            throw new InvalidResultError("tasks/get", task, "a completed task needs a result");
          }
          return task.result;
        case "failed":
          throw isPlainObject(task.error)
            ? JsonRpcError.fromObject(task.error as unknown as JsonRpcErrorObject)
            : new InvalidResultError("tasks/get", task, "a failed task needs an error");
        case "cancelled":
          throw new TaskCancelledError(taskId);
        case "input_required":
          await answerNew(task, tasks, wait, answered);
          break;
      }
      const interval =
        typeof task.pollIntervalMs === "number" ? task.pollIntervalMs : DEFAULT_POLL_MS;
      await delay(Math.max(MIN_POLL_MS, interval), signal);
      task = await tasks.get(taskId, signal);
    }
  } catch (error) {
    if (signal?.aborted) {
      // The caller gave up: so should the server (best effort; the reply does not matter).
      await tasks.cancel(taskId).catch(ignoring("cancelling a task"));
      throw new LocalError("aborted", `the call was aborted; task ${taskId} was cancelled`, {
        cause: error,
      });
    }
    throw error;
  }
}

/** Answers the inputRequests not answered before (a poll repeats outstanding ones). */
async function answerNew(
  task: JsonObject,
  tasks: ClientTasks,
  wait: TaskWait,
  answered: Set<string>,
): Promise<void> {
  if (!isPlainObject(task.inputRequests)) return;
  const fresh: JsonObject = {};
  for (const [key, request] of Object.entries(task.inputRequests)) {
    if (!answered.has(key)) fresh[key] = request;
  }
  if (Object.keys(fresh).length === 0) return;
  const responses = await answerInputRequests(
    "tools/call",
    { inputRequests: fresh },
    wait.handlers,
    wait.signal,
    wait.origin,
  );
  await tasks.update(task.taskId as string, responses, wait.signal);
  for (const key of Object.keys(responses)) answered.add(key);
}
