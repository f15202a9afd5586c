import {
  ErrorCode,
  JsonRpcError,
  MissingRequiredClientCapabilityError,
} from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import type { ClientCapabilities, ServerCapabilities, Tool } from "../../protocol/mcp-types.js";
import type { Era } from "../../protocol/versions.js";
import { checkClusterSecret } from "../cluster-check.js";
import type { HandlerContext } from "../context.js";
import type { LegacyPeer, McpServerBase, ServerExtension } from "../mcp-server.js";
import type { SubscriptionEvent } from "../subscriptions.js";
import type { AdoptedTool, ToolCallHook } from "../tool-hooks.js";
import type { ToolOptions } from "../tool-options.js";
import { LegacyTasks } from "./legacy-tasks.js";
import {
  LEGACY_TASK_METHODS,
  legacyTaskFromNotification,
  legacyTasksCapability,
} from "./legacy-wire.js";
import { checkTasksOptions, checkTaskTimes, TaskManager, type TasksOptions } from "./manager.js";
import { legacySessionKey, taskOwner } from "./owner.js";
import { callWithTask, type ToolTaskOptions } from "./task-call.js";
import { taskNotification } from "./task-view.js";
import { declaresTasks, TASKS_EXTENSION, tasksRequirement } from "./wire.js";

const TASK_METHOD_NAMES = [
  "tasks/get",
  "tasks/update",
  "tasks/cancel",
  "tasks/result",
  "tasks/list",
];

/**
 * The tasks extension (extensions/tasks/tasks.md) and, from the same records, the tasks of
 * 2025-11-25 (basic/utilities/tasks.mdx). McpServer (mcpwire/server) installs one;
 * it offers nothing until a tool is registered with `task`, and makes its task store then.
 */
export class TasksExtension implements ServerExtension {
  readonly id = TASKS_EXTENSION;
  readonly methods: Readonly<
    Record<string, (p: JsonObject, c: HandlerContext) => Promise<JsonObject>>
  >;
  readonly tools: ToolCallHook;
  private readonly options: TasksOptions;
  private server: McpServerBase | undefined;
  private taskManager: TaskManager | undefined;
  private legacyTasks: LegacyTasks | undefined;

  constructor(options: TasksOptions = {}) {
    checkTasksOptions(options);
    this.options = options;
    this.tools = { option: "task", adopt: this.adopt, refuse: this.refuse };
    this.methods = Object.fromEntries(
      TASK_METHOD_NAMES.map((method) => [
        method,
        (params: JsonObject, context: HandlerContext) => this.answer(method, params, context),
      ]),
    );
  }

  setup(server: McpServerBase): void {
    this.server = server;
    if (this.options.store?.sharedAcrossInstances)
      checkClusterSecret(server.options, "tasks.store");
  }

  /** The task manager: undefined until a task tool or a relayed task first needs one. */
  get manager(): TaskManager | undefined {
    return this.taskManager;
  }

  /** The task manager, made on first need (the gateway runs tasks of its own through it). */
  ensureManager(): TaskManager {
    const server = this.host();
    this.taskManager ??= new TaskManager(this.options, server.reportError, (record) =>
      server.subscriptionEvents.publish({
        type: "taskStatus",
        owner: record.owner,
        task: taskNotification(record),
        ...(record.legacySession !== undefined ? { legacySession: record.legacySession } : {}),
      }),
    );
    return this.taskManager;
  }

  /** Offered while a tool that can become a task is registered. */
  readonly capability = (): JsonObject | undefined => (this.hasTaskTools() ? {} : undefined);

  /** 2025-11-25 sessions: the same tools as task-augmented calls. */
  readonly capabilities = (era: Era): ServerCapabilities | undefined => {
    if (era !== "legacy" || !this.hasTaskTools()) return undefined;
    return { tasks: legacyTasksCapability(this.ensureManager().store.listIds !== undefined) };
  };

  readonly isOffered = (capabilities: ServerCapabilities, era: Era): boolean =>
    (capabilities.extensions as JsonObject | undefined)?.[TASKS_EXTENSION] !== undefined ||
    (era === "legacy" && capabilities.tasks !== undefined);

  /** A 2025-11-25 session hears the status of the tasks it made, on its own stream. */
  readonly deliverToLegacy = (event: SubscriptionEvent, sessions: Iterable<LegacyPeer>) => {
    if (event.type !== "taskStatus") return false;
    const made = event.legacySession;
    if (made === undefined) return true;
    // Every instance of a cluster holding a copy of that session decides alike, and the
    // event's id keeps it to one message on the session's stream.
    const task = legacyTaskFromNotification(event.task);
    for (const session of sessions) {
      if (legacySessionKey(session) === made) {
        session.notifyInitialized("notifications/tasks/status", task, event.id);
      }
    }
    return true;
  };

  /** A listen stream's taskIds: "MUST return" -32021 without the extension declared. */
  readonly listenOwner = (clientCapabilities: ClientCapabilities, principal: unknown): string => {
    if (!declaresTasks(clientCapabilities)) {
      throw new MissingRequiredClientCapabilityError(tasksRequirement());
    }
    return taskOwner(principal);
  };

  readonly close = async (): Promise<void> => {
    await this.taskManager?.close();
  };

  private readonly adopt = (name: string, options: ToolOptions): AdoptedTool | undefined => {
    const task = checkToolTask(options.task, name);
    if (!task) return undefined;
    return {
      ...(task.support === "required" ? { requires: tasksRequirement() } : {}),
      listed: (tool, era) => (era === "legacy" ? withTaskSupport(tool, task.support) : tool),
      call: ({ args, params, context, invoke }) =>
        callWithTask(this.ensureManager(), task, args, context, invoke, params.task, name),
    };
  };

  /** "SHOULD return a -32601" for a task asked of a tool that cannot be one (tasks.mdx). */
  private readonly refuse = (name: string, params: JsonObject, context: HandlerContext): void => {
    if (params.task === undefined || context.era !== "legacy" || !this.hasTaskTools()) return;
    throw new JsonRpcError(ErrorCode.MethodNotFound, `Tool ${name} cannot run as a task`);
  };

  /** tasks/*: the 2025-11-25 form for a legacy session without the extension, else the extension. */
  private answer(method: string, params: JsonObject, context: HandlerContext): Promise<JsonObject> {
    const offered = this.host().capabilities(context.era);
    const legacy = context.era === "legacy" && LEGACY_TASK_METHODS.has(method);
    if (legacy && offered.tasks && !declaresTasks(context.clientCapabilities)) {
      this.legacyTasks ??= new LegacyTasks(this.ensureManager(), this.host().options.pageSize);
      return this.legacyTasks.handle(method, params, context);
    }
    // tasks/result and tasks/list are 2025-11-25's alone: the extension has neither.
    const extensions = offered.extensions as JsonObject | undefined;
    if (method === "tasks/result" || method === "tasks/list" || !extensions?.[TASKS_EXTENSION]) {
      throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
    return this.ensureManager().handle(method, params, context);
  }

  private hasTaskTools(): boolean {
    return this.server?.hasToolsAdoptedBy(this.tools) === true;
  }

  private host(): McpServerBase {
    if (!this.server) throw new Error("the tasks extension is not installed on a server");
    return this.server;
  }
}

/** Refuses task options that make no sense; undefined when the tool never runs as a task. */
function checkToolTask(
  task: ToolTaskOptions | undefined,
  name: string,
): ToolTaskOptions | undefined {
  if (task === undefined || task.support === "never") return undefined;
  if (task.support !== "optional" && task.support !== "required") {
    throw new Error(`tool ${name}: task.support must be "never", "optional" or "required"`);
  }
  if (task.start !== undefined && task.start !== "call" && task.start !== "handler") {
    throw new Error(`tool ${name}: task.start must be "call" or "handler"`);
  }
  checkTaskTimes(task, `tool ${name}: task`);
  return task;
}

/** The tool with its 2025-11-25 execution.taskSupport. */
function withTaskSupport(tool: Tool, support: string): Tool {
  const execution = (tool as unknown as JsonObject).execution as JsonObject | undefined;
  return { ...tool, execution: { ...execution, taskSupport: support } } as Tool;
}
