/**
 * McpServer: tools, resources, prompts and completions, served in the modern and legacy eras, plus serveStdio (also in mcpwire/transports/stdio; serveHttp is in mcpwire/transports/http).
 *
 * @module mcpwire/server
 */

export { type AjvValidatorOptions, ajvValidator } from "../schema/ajv.js";
export { cfworkerValidator } from "../schema/cfworker.js";
export {
  type SchemaCheck,
  type SchemaDialect,
  SchemaError,
  type SchemaFailure,
  type SchemaValidator,
} from "../schema/validator.js";
// The one entry that reaches up a layer: a stdio server imports this subpath alone, so the stdio
// client half (spawning, process trees) stays out of its cold start.
export { serveStdio } from "../transports/stdio/serve.js";
export type { Completer } from "./completion.js";
export type { HandlerContext, InputOptions, LogFunction, RequestLogger } from "./context.js";
export type { LegacyPeer, ServerExtension } from "./mcp-server.js";
export { McpServerBase } from "./mcp-server.js";
export type { ServerMiddleware, ServerMiddlewareContext } from "./middleware-chain.js";
export type { RequestStateOptions } from "./mrtr/request-state.js";
export type { InputRequest } from "./mrtr/round.js";
export type { PromptHandler, PromptOptions } from "./prompt-registry.js";
export type { RequiredClientCapabilities } from "./required-capabilities.js";
export { resolveInside } from "./resolve-inside.js";
export type {
  ReadHandler,
  ResourceOptions,
  TemplateOptions,
  TemplateReadHandler,
} from "./resource-registry.js";
export { safePathSegments } from "./safe-paths.js";
export type {
  SchemaInput,
  SchemaOutput,
  SchemaSource,
  StandardJsonSchema,
} from "./schema-source.js";
export { type CachingOptions, DEFAULT_CACHE_HINTS, type McpServerOptions } from "./server-core.js";
export {
  InMemoryEventSource,
  type SubscriptionEvent,
  type SubscriptionEventListener,
  type SubscriptionEventSource,
  type SubscriptionLimits,
} from "./subscriptions.js";
export { LiveTask } from "./tasks/live-task.js";
export type {
  TaskRunInfo,
  TaskRunner,
  TasksOptions,
  TaskTimes,
} from "./tasks/manager.js";
export { InMemoryTaskStore, type InMemoryTaskStoreOptions } from "./tasks/memory-store.js";
export {
  type TaskQuota,
  TaskQuotaError,
  type TaskRecord,
  type TaskRelay,
  type TaskRelayMessage,
  type TaskRunners,
  type TaskStore,
  TaskStoreFullError,
} from "./tasks/store.js";
export type { ToolTaskOptions } from "./tasks/task-call.js";
export { isTerminal, TASKS_EXTENSION, type TaskStatus } from "./tasks/wire.js";
export type { ToolHandle, ToolUpdate } from "./tool-handle.js";
export type { AdoptedCall, AdoptedTool, ToolCallHook, ToolInvocation } from "./tool-hooks.js";
export type { ToolDefinition, ToolHandler, ToolOptions, ToolReturn } from "./tool-registry.js";

import { McpServerBase } from "./mcp-server.js";
import type { McpServerOptions } from "./server-core.js";
import { TasksExtension } from "./tasks/extension.js";
import type { TaskManager } from "./tasks/manager.js";

/**
 * An MCP server: register tools, resources and prompts once, then connect it to any number of
 * transports. Each connection serves modern requests (per-request `_meta`) and, unless turned
 * off, legacy `initialize` sessions, with the same handlers. The tasks extension comes
 * installed: it offers nothing until a tool is registered with `task`.
 */
export class McpServer extends McpServerBase {
  /** @internal The installed tasks extension (the gateway runs relayed tasks through it). */
  readonly tasksExtension: TasksExtension;

  constructor(options: McpServerOptions) {
    super(options);
    this.tasksExtension = new TasksExtension(options.tasks);
    this.install(this.tasksExtension);
  }

  /** The tasks extension's state: undefined until a task is first needed. */
  get tasks(): TaskManager | undefined {
    return this.tasksExtension.manager;
  }
}
