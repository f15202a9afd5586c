export { ClientConnection } from "./connection.js";
export {
  chooseModernVersion,
  MODERN_ERROR_CODES,
  ModernHandshakeError,
  NoCommonVersionError,
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
export { awaitTask, ClientTasks, TaskCancelledError } from "./tasks.js";
export type * from "./types.js";
