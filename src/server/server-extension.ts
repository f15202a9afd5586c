import type { JsonObject } from "../jsonrpc/types.js";
import type { Extension } from "../protocol/extension.js";
import type { ClientCapabilities, ServerCapabilities } from "../protocol/mcp-types.js";
import type { Era } from "../protocol/versions.js";
import type { HandlerContext } from "./context.js";
import type { McpServer } from "./mcp-server.js";
import type { ServerMiddlewareContext } from "./middleware-chain.js";
import type { SubscriptionEvent } from "./subscriptions.js";
import type { ToolCallHook } from "./tool-hooks.js";

/**
 * An extension as a server installs it (McpServer.install): the shared Extension (capability,
 * methods, middleware, setup) and the hooks through which an extension takes part in what the
 * core does itself. The tasks extension uses every one of them; most extensions need none.
 */
export interface ServerExtension
  extends Extension<McpServer, HandlerContext, ServerMiddlewareContext> {
  /**
   * Capability fields outside `capabilities.extensions` that it adds in `era`, merged in
   * (2025-11-25's top-level `tasks`); undefined adds none.
   */
  readonly capabilities?: (era: Era) => ServerCapabilities | undefined;
  /**
   * Whether the server offers the extension, given its capabilities for `era`; its methods are
   * answered only then. Default: `capabilities.extensions[id]` is present.
   */
  readonly isOffered?: (capabilities: ServerCapabilities, era: Era) => boolean;
  /** Its part in the calls of the tools whose options ask for it. */
  readonly tools?: ToolCallHook;
  /**
   * An event on its way to the server's legacy sessions (`sessions`, initialized or not):
   * returns true when the extension delivered it itself, so that nothing else does.
   */
  readonly deliverToLegacy?: (event: SubscriptionEvent, sessions: Iterable<LegacyPeer>) => boolean;
  /**
   * A subscriptions/listen stream asks for `taskIds`: the owner key whose task status the
   * stream hears; throws (a JsonRpcError) to refuse the stream.
   */
  readonly listenOwner?: (clientCapabilities: ClientCapabilities, principal: unknown) => string;
  /** Awaited by server.close(), once every connection has closed. */
  readonly close?: () => Promise<void>;
}

/** A legacy session as an extension reaches it (see ServerExtension.deliverToLegacy). */
export interface LegacyPeer {
  /** The transport's session id, when it has one (Streamable HTTP). */
  readonly sessionId: string | undefined;
  /** A notification on the session, once it is initialized (dropped before). */
  notifyInitialized(method: string, params: JsonObject, origin?: string): void;
}
