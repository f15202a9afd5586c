/**
 * McpClient: era detection, calls, pagination, subscriptions, tasks, and answers to what servers ask.
 *
 * @module mcpwire/client
 */
// The JSON Schema engines for McpClientOptions.validator (also in mcpwire/server).
export { type AjvValidatorOptions, ajvValidator } from "../schema/ajv.js";
export { cfworkerValidator } from "../schema/cfworker.js";
export { SchemaError, type SchemaValidator } from "../schema/validator.js";
export type {
  ClientCallHook,
  FinishedCall,
  OutgoingCall,
  PreparedCall,
} from "./call-hooks.js";
export { ModernHandshakeError, NoCommonVersionError } from "./era-detection.js";
export { type ClientExtension, McpClientBase } from "./mcp-client.js";
export type { ClientMiddleware, ClientMiddlewareContext } from "./middleware-chain.js";
export {
  answerInputRequests,
  DEFAULT_MAX_INPUT_ROUNDS,
  InputRoundsExceededError,
  resolveInputRequired,
  withElicitationDefaults,
} from "./mrtr.js";
export { InputRequiredError, InvalidResultError, isResourceNotFound } from "./results.js";
export {
  Subscription,
  type SubscriptionEnd,
  type SubscriptionNotification,
} from "./subscription.js";
export { awaitTask, ClientTasks, TaskCancelledError, type TaskWait } from "./tasks/client-tasks.js";
export type {
  Cacheable,
  CallOptions,
  ClientDiscoverResult,
  ClientHandlers,
  CompletionReference,
  ConnectOptions,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  McpClientOptions,
  Paginated,
  Root,
  ServerRequestContext,
  ServerRequestHandler,
  TransportFactory,
} from "./types.js";

import { McpClientBase } from "./mcp-client.js";
import type { ClientTasks } from "./tasks/client-tasks.js";
import { ClientTasksExtension } from "./tasks/extension.js";
import type { McpClientOptions } from "./types.js";

/**
 * An MCP client for both protocol eras. connect() finds the server's era (or takes the one
 * forced or cached), and every call afterwards speaks that era: per-request `_meta` for modern
 * servers, the `initialize` session for legacy ones. The tasks extension comes installed:
 * modern requests declare it (see McpClientOptions.tasks), and callTool carries a call the
 * server turns into a task to its result.
 */
export class McpClient extends McpClientBase {
  /** tasks/get, tasks/update and tasks/cancel (the tasks extension). */
  readonly tasks: ClientTasks;

  constructor(options: McpClientOptions) {
    super(options);
    const declared =
      options.tasks === true || (options.capabilities === undefined && options.tasks !== false);
    const extension = new ClientTasksExtension(declared);
    this.tasks = extension.tasks;
    this.install(extension);
  }
}
