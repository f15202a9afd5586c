import {
  ErrorCode,
  InternalError,
  InvalidParamsError,
  isPlainObject,
  JsonRpcError,
} from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import {
  type ContextInputs,
  deriveHandlerContext,
  type HandlerContext,
  legacyConnectionOf,
} from "../context.js";
import type { ToolInvocation } from "../tool-hooks.js";
import { legacyTask, legacyTaskOwner } from "./legacy-wire.js";
import type { LiveTask } from "./live-task.js";
import type { TaskManager, TaskTimes } from "./manager.js";
import { legacySessionKey } from "./owner.js";
import type { TaskRecord } from "./store.js";
import { TaskQuotaError, TaskStoreFullError } from "./store.js";
import { createTaskResult } from "./task-view.js";
import { declaresTasks } from "./wire.js";

/** How a tool takes part in the tasks extension (ToolOptions.task). */
export interface ToolTaskOptions {
  /**
   * "optional": a client that declared the extension gets a task, others a plain result.
   * "required": the same, but a client without the extension gets -32021 naming it.
   * "never" (the default when `task` is absent): always a plain result.
   */
  support: "never" | "optional" | "required";
  /** This tool's ttlMs (null: unlimited) and pollIntervalMs; the server's defaults otherwise. */
  ttlMs?: number | null;
  pollIntervalMs?: number;
  /**
   * Decides per call: false answers at once with a plain result (quick work), true makes a
   * task. Default: always a task.
   */
  when?: (args: JsonObject, context: HandlerContext) => boolean | Promise<boolean>;
  /**
   * "call" (default): the task is made before the handler runs. "handler": the handler runs
   * inside the request, may ask for input there (multi round-trip), and makes the task itself
   * with context.startTask(); one that returns first answers with a plain result.
   */
  start?: "call" | "handler";
}

// ToolOptions.task, added to the core's type here, beside its own: a program that sees
// ToolTaskOptions (mcpwire/server exports it) sees the option.
declare module "../tool-options.js" {
  interface ToolOptions {
    /**
     * Whether calls may run as tasks (the io.modelcontextprotocol/tasks extension): `never` by
     * default. With `required`, a client that did not declare the extension gets -32021.
     */
    task?: ToolTaskOptions;
  }
}

/**
 * Runs one tools/call of a task-capable tool: as a task when the client declared the extension
 * (and the tool wants one this time), otherwise as a plain call. The handler and its context
 * API are the same either way; only where input goes and what `signal` follows changes.
 */
export async function callWithTask(
  manager: TaskManager,
  options: ToolTaskOptions,
  args: JsonObject,
  context: HandlerContext,
  invoke: ToolInvocation,
  /** tools/call's `task` parameter (2025-11-25 task augmentation; legacy sessions only). */
  augmentation?: unknown,
  /** The tool's name, for TasksOptions.runTask. */
  tool?: string,
): Promise<JsonObject> {
  if (
    context.era === "legacy" &&
    options.support !== "never" &&
    !declaresTasks(context.clientCapabilities)
  ) {
    return legacyTaskCall(manager, options, context, invoke, augmentation, tool);
  }
  if (options.support === "never" || !declaresTasks(context.clientCapabilities)) {
    return invoke(context);
  }
  if (options.when && !(await options.when(args, context))) return invoke(context);
  const times: TaskTimes = {
    ttlMs: options.ttlMs === undefined ? manager.defaults.ttlMs : options.ttlMs,
    pollIntervalMs: options.pollIntervalMs ?? manager.defaults.pollIntervalMs,
  };
  if (options.start === "handler") return startedByHandler(manager, times, context, invoke);

  const record = await createOrRefuse(manager, context, times);
  const live = manager.attach(record);
  const { context: taskContext, inputs } = deriveHandlerContext(context, {
    request: { signal: live.controller.signal },
  });
  detach(inputs, live);
  runDetached(
    manager,
    live,
    inBackground(manager, record, tool, () => invoke(taskContext)),
  );
  return createTaskResult(record);
}

/**
 * A 2025-11-25 tools/call: a task when the client sent `task` (whatever `when` and `start`
 * say: it asked for one), a plain call otherwise, or -32601 for a tool that must be a task
 * (tasks.mdx, Tool-Level Negotiation).
 */
async function legacyTaskCall(
  manager: TaskManager,
  options: ToolTaskOptions,
  context: HandlerContext,
  invoke: ToolInvocation,
  augmentation: unknown,
  tool: string | undefined,
): Promise<JsonObject> {
  if (augmentation === undefined) {
    if (options.support !== "required") return invoke(context);
    throw new JsonRpcError(
      ErrorCode.MethodNotFound,
      "This tool requires task augmentation: send tools/call with a `task` parameter",
    );
  }
  if (!isPlainObject(augmentation)) {
    throw new InvalidParamsError('tools/call: "task" must be an object ({ ttl?: number })');
  }
  const toolTtl = options.ttlMs === undefined ? manager.defaults.ttlMs : options.ttlMs;
  const asked = augmentation.ttl;
  if (asked !== undefined && !(Number.isInteger(asked) && (asked as number) > 0)) {
    throw new InvalidParamsError(
      'tools/call: "task.ttl" must be a positive integer (milliseconds)',
    );
  }
  // The receiver may shorten what was asked for, never lengthen it past the tool's own TTL.
  const ttlMs =
    asked === undefined
      ? toolTtl
      : toolTtl === null
        ? (asked as number)
        : Math.min(asked as number, toolTtl);
  const times: TaskTimes = {
    ttlMs,
    pollIntervalMs: options.pollIntervalMs ?? manager.defaults.pollIntervalMs,
  };
  const session = legacyConnectionOf(context);
  const owner = legacyTaskOwner(context.principal, session);
  const record = await createOrRefuse(
    manager,
    context,
    times,
    owner,
    session && legacySessionKey(session),
  );
  const live = manager.attach(record);
  const { context: taskContext, inputs } = deriveHandlerContext(context, {
    request: { signal: live.controller.signal },
  });
  detach(inputs, live);
  runDetached(
    manager,
    live,
    inBackground(manager, record, tool, () => invoke(taskContext)),
  );
  return { task: legacyTask(record) };
}

/** start: "handler": the request lasts until the handler returns or calls startTask(). */
async function startedByHandler(
  manager: TaskManager,
  times: TaskTimes,
  context: HandlerContext,
  invoke: ToolInvocation,
): Promise<JsonObject> {
  // One controller for the handler's whole life: the request's signal until it becomes a task,
  // the task's (cancel, shutdown) after. Linked by listener so the request may end meanwhile.
  const controller = new AbortController();
  const requestSignal = context.signal;
  const followRequest = () => controller.abort(requestSignal.reason);
  if (requestSignal.aborted) followRequest();
  else requestSignal.addEventListener("abort", followRequest, { once: true });

  let started: Promise<boolean> | undefined;
  let announce: (record: TaskRecord) => void = () => {};
  const announced = new Promise<TaskRecord>((resolve) => {
    announce = resolve;
  });
  let live: LiveTask | undefined;
  const { context: taskContext, inputs } = deriveHandlerContext(context, {
    request: { signal: controller.signal },
    startTask: () => {
      started ??= (async () => {
        const record = await createOrRefuse(manager, context, times);
        live = manager.attach(record);
        requestSignal.removeEventListener("abort", followRequest);
        live.controller.signal.addEventListener("abort", () =>
          controller.abort(live?.controller.signal.reason),
        );
        detach(inputs, live);
        announce(record);
        return true;
      })();
      return started;
    },
  });
  const running = invoke(taskContext);
  const first = await Promise.race([
    running.then((result) => ({ result })),
    announced.then((record) => ({ record })),
  ]);
  if ("result" in first) {
    requestSignal.removeEventListener("abort", followRequest);
    // Returned before a task was announced: a plain answer. A task being made in that instant
    // (startTask() not awaited) still gets the outcome, so it never stays "working".
    await started?.catch(() => {});
    if (live) runDetached(manager, live, running);
    return first.result;
  }
  runDetached(manager, live!, running);
  return createTaskResult(first.record);
}

/** From here on the handler is a task's: input parks it, progress and logs go nowhere. */
function detach(inputs: ContextInputs, live: LiveTask): void {
  inputs.inputRound = undefined;
  inputs.requestClient = (method, params) => live.ask(method, params);
  // "notifications/progress and notifications/message ... are not supported on tasks"
  // (extensions/tasks/tasks.md, Task Status Notifications).
  inputs.notify = () => Promise.resolve();
  inputs.startTask = () => Promise.resolve(true);
}

/** A task's run, through TasksOptions.runTask (a failing runner fails the task, no more). */
function inBackground(
  manager: TaskManager,
  record: TaskRecord,
  tool: string | undefined,
  run: () => Promise<JsonObject>,
): Promise<JsonObject> {
  try {
    return manager.runTask(run, { taskId: record.taskId, tool });
  } catch (error) {
    return Promise.reject(error);
  }
}

function runDetached(manager: TaskManager, live: LiveTask, running: Promise<JsonObject>): void {
  running.then(
    (result) => manager.settle(live, { result }),
    (error: unknown) => manager.settle(live, { error }),
  );
}

async function createOrRefuse(
  manager: TaskManager,
  context: HandlerContext,
  times: TaskTimes,
  owner?: string,
  legacySession?: string,
): Promise<TaskRecord> {
  try {
    const connection = legacyConnectionOf(context);
    return await manager.create(context.principal, times, connection, owner, legacySession);
  } catch (error) {
    if (error instanceof TaskQuotaError) {
      throw new InternalError(
        `You already hold ${error.quota.max} tasks, the most this server allows one client (maxTasksPerOwner); a task counts until its TTL elapses`,
        { limit: error.quota.max },
      );
    }
    if (error instanceof TaskStoreFullError) {
      const most =
        error.limit === undefined ? "" : ` (at most ${error.limit}, all clients together)`;
      throw new InternalError(
        `This server holds too many tasks right now${most}; try again later`,
        error.limit === undefined ? undefined : { limit: error.limit },
      );
    }
    throw error;
  }
}
