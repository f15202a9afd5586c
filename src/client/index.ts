/**
 * McpClient: era detection, calls, pagination, subscriptions, tasks, and answers to what servers ask.
 *
 * @module mcpwire/client
 */
export { ClientConnection } from "./connection.js";
export {
  chooseModernVersion,
  type DiscoverOutcome,
  MODERN_ERROR_CODES,
  ModernHandshakeError,
  NoCommonVersionError,
  type ProbeOutcome,
  probeEra,
} from "./era-detection.js";
export type { ServerState } from "./handshake.js";
export { McpClient } from "./mcp-client.js";
export {
  answerInputRequests,
  DEFAULT_MAX_INPUT_ROUNDS,
  InputRoundsExceededError,
  resolveInputRequired,
  withElicitationDefaults,
} from "./mrtr.js";
export { collectPages, MAX_PAGES } from "./pagination.js";
export { ResultCache, stableStringify } from "./result-cache.js";
export { InputRequiredError, InvalidResultError, isResourceNotFound } from "./results.js";
export {
  Subscription,
  type SubscriptionEnd,
  type SubscriptionNotification,
} from "./subscription.js";
export { type SubscriptionChannel, SubscriptionRegistry } from "./subscriptions.js";
export { awaitTask, ClientTasks, TaskCancelledError, type TaskWait } from "./tasks.js";
export type * from "./types.js";
