/**
 * MCP protocol types and versions, `_meta` keys, and the Session that runs JSON-RPC over a transport.
 *
 * @module mcpwire/protocol
 */

export type { Extension, ExtensionMethod } from "./extension.js";
export { type AbortSource, LazyAbort } from "./lazy-abort.js";
export {
  type Annotations,
  type AudioContent,
  type CacheHint,
  type CallToolResult,
  type ClientCapabilities,
  type CompleteResult,
  type ContentBlock,
  type DiscoverResult,
  type EmbeddedResource,
  type GetPromptResult,
  type Icon,
  type ImageContent,
  type Implementation,
  type InitializeResult,
  isLoggingLevel,
  LOGGING_LEVELS,
  type LoggingLevel,
  type Prompt,
  type PromptArgument,
  type PromptMessage,
  type ReadResourceResult,
  type Resource,
  type ResourceContents,
  type ResourceLink,
  type ResourceTemplate,
  type ServerCapabilities,
  type SubscriptionFilter,
  type TextContent,
  type Tool,
} from "./mcp-types.js";
export { META } from "./meta.js";
export {
  type ComposeOptions,
  compose,
  type MethodMiddleware,
  type Middleware,
  type MiddlewareContext,
  type Next,
  NextCalledTwiceError,
} from "./middleware.js";
export type { Progress, RequestOptions } from "./outgoing.js";
export {
  type IncomingRequestContext,
  type NotificationHandler,
  type RequestHandler,
  Session,
  type SessionDispatcher,
  type SessionOptions,
} from "./session.js";
export type {
  CloseInfo,
  FrameError,
  MessageContext,
  RemoteEndpoint,
  SendOptions,
  Transport,
  TransportKind,
  TransportReceiver,
} from "./transport.js";
export {
  type Era,
  eraOf,
  isLegacyVersion,
  isModernVersion,
  LATEST_LEGACY_VERSION,
  LATEST_MODERN_VERSION,
  LEGACY_VERSIONS,
  type LegacyVersion,
  MODERN_VERSIONS,
  type ModernVersion,
  type ProtocolVersion,
} from "./versions.js";
