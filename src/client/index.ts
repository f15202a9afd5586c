/**
 * McpClient: era detection, calls, pagination, subscriptions, tasks, and answers to what servers ask.
 *
 * @module mcpwire/client
 */
// The JSON Schema engines for McpClientOptions.validator (also in mcpwire/server).
export { type AjvValidatorOptions, ajvValidator } from "../schema/ajv.js";
export { cfworkerValidator } from "../schema/cfworker.js";
export { SchemaError, type SchemaValidator } from "../schema/validator.js";
export { ModernHandshakeError, NoCommonVersionError } from "./era-detection.js";
export { type ClientExtension, McpClient } from "./mcp-client.js";
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
export { awaitTask, ClientTasks, TaskCancelledError, type TaskWait } from "./tasks.js";
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
