import type { JsonObject } from "../jsonrpc/types.js";
import type {
  CacheHint,
  ClientCapabilities,
  Implementation,
  LoggingLevel,
  ServerCapabilities,
} from "../protocol/mcp-types.js";
import type { MiddlewareStack } from "../protocol/middleware.js";
import type { RequestOptions, SessionOptions } from "../protocol/session.js";
import type { Era } from "../protocol/versions.js";
import type { SchemaValidator } from "../schema/validator.js";
import type { HandlerContext } from "./context.js";
import type { ServerMiddlewareContext } from "./middleware-chain.js";
import type { RequestStateCodec, RequestStateOptions } from "./mrtr/request-state.js";
import type { SubscriptionEventSource, SubscriptionLimits } from "./subscriptions.js";

/** Caching hints per cacheable method (2026-07-28 server/utilities/caching.mdx). */
export interface CachingOptions {
  "server/discover"?: CacheHint;
  "tools/list"?: CacheHint;
  "prompts/list"?: CacheHint;
  "resources/list"?: CacheHint;
  "resources/templates/list"?: CacheHint;
  /** Default for reads; a resource's own `cache` option wins. */
  "resources/read"?: CacheHint;
}

export interface McpServerOptions {
  serverInfo: Implementation;
  instructions?: string;
  /** Which eras to serve. Default "dual": modern `_meta` requests and legacy `initialize` alike. */
  eras?: "dual" | "modern" | "legacy";
  /** Extra or overriding capability fields, merged over what the registered features imply. */
  capabilities?: ServerCapabilities;
  /** Page size for list methods; unset means one page. */
  pageSize?: number;
  caching?: CachingOptions;
  /** Put `io.modelcontextprotocol/serverInfo` in every modern result's `_meta` (default true). */
  includeServerInfo?: boolean;
  /** Engine settings for every connection (timeouts, shutdown grace, concurrency cap). */
  session?: SessionOptions;
  /** Where protocol problems and handler bugs are reported. Default: a line on stderr. */
  onError?: (error: Error) => void;
  /**
   * Problems a peer causes over and over (replies to unknown ids, unreadable messages, streams
   * it does not read) reach onError once per kind in this window (ms); then one summary counts
   * the rest. Default 10 s; 0 reports every one.
   */
  peerLogIntervalMs?: number;
  /** Multi round-trip requests: the requestState secret(s), lifetime and size cap. */
  mrtr?: RequestStateOptions;
  /**
   * Where list changes and resource updates are published and heard (subscriptions/listen
   * streams, legacy notifications). Default: in memory, this server only; a shared bus lets
   * several server instances fan notifications out to each other's clients.
   */
  subscriptionEvents?: SubscriptionEventSource;
  /** Caps on what clients may subscribe to (see SubscriptionLimits). */
  subscriptions?: SubscriptionLimits;
  /**
   * The JSON Schema engine for tool arguments and structuredContent: ajvValidator() (code
   * generation, the default on Node, Bun and Deno) or cfworkerValidator() (no code generation,
   * the default under the workerd, worker and browser export conditions), or your own.
   */
  validator?: SchemaValidator;
}

/** What a connection needs from its server; implemented by McpServer. */
export interface ServerCore {
  readonly options: McpServerOptions;
  /** What every connection's Session runs with: one object shared by all of them. */
  readonly sessionOptions: SessionOptions;
  readonly modernEnabled: boolean;
  readonly legacyEnabled: boolean;
  readonly modernVersions: string[];
  readonly legacyVersions: string[];
  /**
   * Every version served, modern first, legacy ones too when that era is on: what
   * server/discover's supportedVersions and -32022's data.supported list, so that a client
   * learns a legacy fallback exists.
   */
  readonly servedVersions: string[];
  /** Seals and opens the `requestState` of multi round-trip requests. */
  readonly requestStates: RequestStateCodec;
  /** The events subscriptions/listen streams deliver. */
  readonly subscriptionEvents: SubscriptionEventSource;
  /** What server.use() added; connections skip it while it is empty. */
  readonly middleware: MiddlewareStack<ServerMiddlewareContext>;
  capabilities(era: Era): ServerCapabilities;
  /**
   * Runs an era-independent method (tools, resources, prompts, completion, discover). A value
   * when the handler answered with one; throws or rejects, so callers await it.
   */
  handle(
    method: string,
    params: JsonObject,
    context: HandlerContext,
  ): JsonObject | Promise<JsonObject>;
  /** Adds resultType, caching hints and serverInfo to a modern result. */
  decorateModern(method: string, result: JsonObject): JsonObject;
  reportError(error: Error): void;
  /**
   * A subscriptions/listen stream asks for `taskIds`: the owner key whose task status it hears,
   * from the extension that offers it (may throw to refuse the stream); undefined when none does.
   */
  listenOwner?(clientCapabilities: ClientCapabilities, principal: unknown): string | undefined;
  /**
   * The connection's session closed (called once, before `session.closed` resolves). It is the
   * ServerConnection that this core made; typed as an object so the core's contract does not
   * depend on the connection class that depends on it.
   */
  connectionClosed(connection: object): void;
  /**
   * Optional, for servers that relay another server (the gateway): a legacy session's
   * logging/setLevel changed its level, or a session that had set one ended. Awaited before
   * setLevel is answered.
   */
  legacyLogLevelsChanged?(): void | Promise<void>;
}

/**
 * An initialized legacy (`initialize`) session, as a server that relays another one sees it:
 * what the client declared and asked for, and a way to reach it outside any request of its.
 */
export interface LegacySessionView {
  readonly clientCapabilities: ClientCapabilities;
  /** What logging/setLevel asked for; undefined until the client sends it. */
  readonly logLevel: LoggingLevel | undefined;
  /** A notification tied to no request (Streamable HTTP: on the session's GET stream). */
  notify(method: string, params: JsonObject): Promise<void>;
  /**
   * A server-to-client request tied to no request of the client's (Streamable HTTP: on the GET
   * stream; rejects at once when the client has none open).
   */
  request(method: string, params: JsonObject, options?: RequestOptions): Promise<JsonObject>;
}

export const DEFAULT_CACHE_HINTS: Required<CachingOptions> = {
  "server/discover": { ttlMs: 0, cacheScope: "public" },
  "tools/list": { ttlMs: 0, cacheScope: "public" },
  "prompts/list": { ttlMs: 0, cacheScope: "public" },
  "resources/list": { ttlMs: 0, cacheScope: "public" },
  "resources/templates/list": { ttlMs: 0, cacheScope: "public" },
  // Reads may well depend on who asks; sharing them must be a deliberate choice.
  "resources/read": { ttlMs: 0, cacheScope: "private" },
};
