import type { JsonObject } from "../jsonrpc/types.js";
import type {
  ClientCapabilities,
  DiscoverResult,
  Implementation,
  LoggingLevel,
  Prompt,
  Resource,
  ResourceTemplate,
  Tool,
} from "../protocol/mcp-types.js";
import type { RequestOptions } from "../protocol/outgoing.js";
import type { Transport } from "../protocol/transport.js";
import type { Era } from "../protocol/versions.js";
import type { SchemaValidator } from "../schema/validator.js";

/** What a handler for a server-to-client request gets besides the params. */
export interface ServerRequestContext {
  /** Aborted when the server cancels the request or the connection closes. */
  signal: AbortSignal;
  /** The key of the modern input request this answers (undefined for a legacy request). */
  inputKey?: string;
  /**
   * The `origin` of the call whose input request this answers (CallOptions.origin): a relay
   * tells by it whose question it is. Undefined for a legacy server-to-client request.
   */
  origin?: unknown;
}

export type ServerRequestHandler = (
  params: JsonObject,
  context: ServerRequestContext,
) => JsonObject | Promise<JsonObject>;

/**
 * Answers to what a server asks its client: legacy server-to-client requests and the
 * inputRequests of a modern InputRequiredResult (multi round-trip) reach the same handlers.
 * A missing handler makes a legacy request fail with -32601 and a modern call reject with
 * InputRequiredError naming what is missing.
 */
export interface ClientHandlers {
  /**
   * `elicitation/create`: resolve with an ElicitResult ({ action, content? }). On "accept",
   * properties left without a value get the requestedSchema's `default`.
   */
  elicitation?: ServerRequestHandler;
  /** `sampling/createMessage`: resolve with a CreateMessageResult. */
  sampling?: ServerRequestHandler;
  /** `roots/list`: resolve with the roots to expose. */
  roots?: (context: ServerRequestContext) => Root[] | Promise<Root[]>;
  /**
   * Answer one round's input requests all at once instead of one after another (default:
   * in turn, as a person answers prompts). A relay that forwards them together, as the
   * gateway does, sets it.
   */
  concurrent?: boolean;
}

export interface Root {
  uri: string;
  name?: string;
  _meta?: JsonObject;
}

export type TransportFactory = () => Transport | Promise<Transport>;

export interface McpClientOptions {
  clientInfo: Implementation;
  /**
   * Declared to the server: per request in `_meta` (modern) or in `initialize` (legacy).
   * Default: derived from `handlers` (roots, sampling, elicitation for each one given).
   */
  capabilities?: ClientCapabilities;
  /** "auto" (default) probes with server/discover and falls back to initialize. */
  era?: "auto" | Era;
  /** Preferred modern version; default LATEST_MODERN_VERSION. */
  protocolVersion?: string;
  /** Version offered in initialize; default LATEST_LEGACY_VERSION. */
  legacyProtocolVersion?: string;
  /** How long the server/discover probe may stay unanswered before falling back (ms, default 3000). */
  probeTimeoutMs?: number;
  /** Default timeout for every request (ms); the session's default (60 s) otherwise. */
  requestTimeoutMs?: number;
  /** Minimum server log level: per-request `_meta` (modern) or logging/setLevel (legacy). */
  logLevel?: LoggingLevel;
  handlers?: ClientHandlers;
  /** Every notification from the server except progress and cancellation, which are routed. */
  onNotification?: (method: string, params: JsonObject) => void;
  /** Protocol trouble worth a log line (unreadable frames, late replies, handler bugs). */
  onProtocolError?: (error: Error) => void;
  /** Era per server, shared between clients; keyed by the `serverKey` given to connect(). */
  eraCache?: Map<string, Era>;
  /** Set false to ignore ttlMs caching hints. Default true. */
  cache?: boolean;
  /** Most input_required rounds answered for one call before it fails (default 8). */
  maxInputRounds?: number;
  // Extensions add options of their own here (module augmentation): the tasks extension's
  // `tasks` is declared in tasks/client-tasks.ts.
  /**
   * Checks each tool result's structuredContent against the outputSchema the server listed
   * for the tool (seen in a tools/list answer): a result that does not match rejects callTool
   * with InvalidResultError. ajvValidator() or cfworkerValidator() (from this entry), or your
   * own. Off by default.
   */
  validator?: SchemaValidator;
}

export interface ConnectOptions {
  /** Key for `eraCache`: the same server configuration gets the same key. */
  serverKey?: string;
  /**
   * Gives up connecting: the request in flight is cancelled, no further transport is opened
   * (no second server for `initialize` after the era probe), what was opened is closed, and
   * connect() rejects with a LocalError of kind "aborted" (the signal's reason when that is a
   * LocalError). close() during connect() does the same, rejecting with kind "closed".
   */
  signal?: AbortSignal;
}

export interface CallOptions extends RequestOptions {
  /** Extra `_meta` for the request (merged with the protocol fields). */
  _meta?: JsonObject;
  // The tasks extension adds returnTaskHandle, task and onTaskStatus (tasks/client-tasks.ts).
  /**
   * Handed to the handlers that answer this call's input requests (multi round-trip rounds, and
   * a task's while the call waits for it) as ServerRequestContext.origin; every wire request of
   * the call carries it while open (RequestOptions.origin).
   */
  origin?: unknown;
}

/** Caching hints a modern server attaches to list/read/discover results. */
export interface Cacheable {
  ttlMs?: number;
  cacheScope?: "public" | "private";
  resultType?: string;
}

export interface Paginated extends Cacheable {
  nextCursor?: string;
  _meta?: JsonObject;
  [key: string]: unknown;
}

export interface ListToolsResult extends Paginated {
  tools: Tool[];
}

export interface ListResourcesResult extends Paginated {
  resources: Resource[];
}

export interface ListResourceTemplatesResult extends Paginated {
  resourceTemplates: ResourceTemplate[];
}

export interface ListPromptsResult extends Paginated {
  prompts: Prompt[];
}

export type CompletionReference =
  | { type: "ref/prompt"; name: string }
  | { type: "ref/resource"; uri: string };

export type ClientDiscoverResult = DiscoverResult & Cacheable;
