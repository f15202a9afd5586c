import { ErrorCode, JsonRpcError, LocalError } from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import { writeStderr } from "../platform/stderr.js";
import { CACHEABLE_METHODS } from "../protocol/caching.js";
import {
  checkExtension,
  type Extension,
  type ExtensionMethod,
  extensionCapability,
} from "../protocol/extension.js";
import type {
  ClientCapabilities,
  Prompt,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
} from "../protocol/mcp-types.js";
import { META } from "../protocol/meta.js";
import { MiddlewareStack } from "../protocol/middleware.js";
import type { SessionOptions } from "../protocol/session.js";
import type { Transport } from "../protocol/transport.js";
import { type Era, LEGACY_VERSIONS, MODERN_VERSIONS } from "../protocol/versions.js";
import { LogThrottle } from "../text/log-throttle.js";
import { checkCachingOptions, repairHandlerHint } from "./cache-hints.js";
import { checkClusterSecret } from "./cluster-check.js";
import { ServerConnection } from "./connection.js";
import type { HandlerContext } from "./context.js";
import { type FeatureKind, Features } from "./features.js";
import type { ServerMiddleware, ServerMiddlewareContext } from "./middleware-chain.js";
import { RequestStateCodec } from "./mrtr/request-state.js";
import type { PromptHandler, PromptOptions } from "./prompt-registry.js";
import { requirementError } from "./required-capabilities.js";
import type {
  ReadHandler,
  ResourceOptions,
  TemplateOptions,
  TemplateReadHandler,
} from "./resource-registry.js";
import type { SchemaSource } from "./schema-source.js";
import {
  DEFAULT_CACHE_HINTS,
  type LegacySessionView,
  type McpServerOptions,
} from "./server-core.js";
import {
  InMemoryEventSource,
  type SubscriptionEvent,
  type SubscriptionEventSource,
} from "./subscriptions.js";
import { type ToolHandle, toolHandle } from "./tool-handle.js";
import type { ToolCallHook } from "./tool-hooks.js";
import type { ToolDefinition, ToolHandler, ToolOptions } from "./tool-registry.js";

const DEFAULT_PEER_LOG_INTERVAL_MS = 10_000;

/**
 * An extension as a server installs it (install()): the shared Extension (capability,
 * methods, middleware, setup) and the hooks through which an extension takes part in what the
 * core does itself. The tasks extension uses every one of them; most extensions need none.
 */
export interface ServerExtension
  extends Extension<McpServerBase, HandlerContext, ServerMiddlewareContext> {
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

/**
 * The MCP server without any extension installed: register tools, resources and prompts once,
 * then connect it to any number of transports. Each connection serves modern requests
 * (per-request `_meta`) and, unless turned off, legacy `initialize` sessions, with the same
 * handlers. McpServer is this with the tasks extension installed; transports take either.
 */
/*
 * McpServerBase fits ServerCore (what connections and the HTTP binding use) structurally: no
 * `implements` clause, so the declarations can leave its internal members out.
 */
export class McpServerBase {
  readonly options: McpServerOptions;
  /** @internal for transports and connections. */
  readonly modernEnabled: boolean;
  /** @internal for transports and connections. */
  readonly legacyEnabled: boolean;
  /** @internal for transports and connections. */
  readonly modernVersions: string[] = [...MODERN_VERSIONS];
  /** @internal for transports and connections. */
  readonly legacyVersions: string[] = [...LEGACY_VERSIONS];
  /** @internal for transports and connections. */
  readonly servedVersions: string[];
  /** @internal for transports and connections. */
  readonly requestStates: RequestStateCodec;
  /** @internal for transports and connections. */
  readonly subscriptionEvents: SubscriptionEventSource;
  /** @internal for transports and connections. */
  readonly sessionOptions: SessionOptions;
  /** @internal for connections: what use() added. */
  readonly middleware = new MiddlewareStack<ServerMiddlewareContext>();
  private readonly features: Features;
  /**
   * What capabilities(era) answers, kept for handle()'s checks until a feature is added or
   * removed: built per request it was three objects and a spread copy each time.
   */
  private offered: Partial<Record<Era, ServerCapabilities>> = {};
  private readonly connections = new Set<ServerConnection>();
  private readonly changeListeners = new Set<(kind: FeatureKind) => void>();
  /** Installed extensions by id, in order, and the methods they answer. */
  private readonly extensions = new Map<string, ServerExtension>();
  private readonly extensionMethods = new Map<
    string,
    { extension: ServerExtension; handler: ExtensionMethod<HandlerContext> }
  >();
  /** What peers cause over and over is logged once per window, then counted (see LogThrottle). */
  private readonly peerFaults: LogThrottle<Error>;

  constructor(options: McpServerOptions) {
    checkCachingOptions(options.caching);
    checkClusterSecret(options);
    this.options = options;
    this.sessionOptions = Object.assign({}, options.session, {
      answerFrameErrors: true,
      onProtocolError: this.reportError,
    });
    const eras = options.eras ?? "dual";
    this.modernEnabled = eras !== "legacy";
    this.legacyEnabled = eras !== "modern";
    // 2026-07-28 basic/versioning.mdx lists a dual-era server's legacy version beside its
    // modern one in -32022's `supported`; discover's supportedVersions says the same.
    this.servedVersions = [
      ...(this.modernEnabled ? this.modernVersions : []),
      ...(this.legacyEnabled ? this.legacyVersions : []),
    ];
    this.requestStates = new RequestStateCodec(options.mrtr);
    this.peerFaults = new LogThrottle<Error>({
      intervalMs: options.peerLogIntervalMs ?? DEFAULT_PEER_LOG_INTERVAL_MS,
      emit: (error) => this.writeError(error),
      summary: (fault, suppressed, intervalMs) =>
        new LocalError(
          "transport",
          `${suppressed} more of "${fault}" in the last ${Math.round(intervalMs / 1000)} s (not logged one by one)`,
          { peerFault: fault },
        ),
    });
    this.features = new Features((kind) => {
      this.offered = {};
      this.subscriptionEvents.publish({ type: "listChanged", kind });
    }, options.validator);
    this.subscriptionEvents = options.subscriptionEvents ?? new InMemoryEventSource();
    // Legacy sessions hear the same events as listen streams (also those of a shared bus).
    this.subscriptionEvents.subscribe((event) => this.deliverToLegacy(event));
  }

  /**
   * Adds middleware around every request and notification (or, given a method, around those of
   * that method only). The first added runs outermost. It runs for both eras and every
   * transport, after routing and the era's checks and before the method's handler (which then
   * validates what the middleware left in `ctx.params`). See docs/middleware.md.
   */
  use(middleware: ServerMiddleware): this;
  use(method: string, middleware: ServerMiddleware): this;
  use(first: string | ServerMiddleware, second?: ServerMiddleware): this {
    if (typeof first === "string") this.middleware.use(first, second!);
    else this.middleware.use(first);
    return this;
  }

  /**
   * Installs an extension: its capability (`capabilities.extensions[id]`, both eras), its
   * methods (answered in both eras, behind the middleware), its middleware (after what was
   * added before), its part in tool calls, then its setup step. One extension per id.
   */
  install(extension: ServerExtension): this {
    checkExtension(extension, this.extensions);
    const methods = Object.entries(extension.methods ?? {});
    for (const [method] of methods) {
      const owner = this.extensionMethods.get(method);
      if (owner) {
        throw new Error(
          `extension ${extension.id}: ${method} is already answered by ${owner.extension.id}`,
        );
      }
    }
    this.extensions.set(extension.id, extension);
    for (const [method, handler] of methods) {
      this.extensionMethods.set(method, { extension, handler });
    }
    for (const entry of extension.middleware ?? []) {
      if (typeof entry === "function") this.use(entry);
      else this.use(entry.method, entry.middleware);
    }
    if (extension.tools) this.features.tools.addHook(extension.tools);
    this.offered = {};
    extension.setup?.(this);
    return this;
  }

  /**
   * Registers a tool (a tool of the same name is replaced); returns its handle: enable(),
   * disable(), update(), remove(). Clients are told of each change (`list_changed`).
   * `options.requiredClientCapabilities` names what a client must have declared to call it.
   */
  tool<I extends SchemaSource = SchemaSource, O extends SchemaSource = SchemaSource>(
    definition: ToolDefinition<I, O>,
    handler: ToolHandler<I, O>,
    options?: ToolOptions,
  ): ToolHandle<I, O> {
    return toolHandle(this.registerTool, definition, handler, options);
  }

  private readonly registerTool = (
    definition: ToolDefinition,
    handler: ToolHandler,
    options: ToolOptions | undefined,
  ): (() => void) => this.features.addTool(definition, handler, options);

  /**
   * The -32021 a tools/call must get before anything runs or streams, when the client lacks a
   * capability the tool was registered as requiring (for transports that open a stream before
   * the handler runs: HTTP's "sse" response mode).
   * @internal
   */
  toolCallRefusal(params: JsonObject, declared: ClientCapabilities): JsonRpcError | undefined {
    const name = params.name;
    if (typeof name !== "string") return undefined;
    return requirementError(this.features.tools.get(name)?.requires, declared);
  }

  resource(resource: Resource, read: ReadHandler, options?: ResourceOptions): () => void {
    return this.features.addResource(resource, read, options);
  }

  resourceTemplate(
    template: ResourceTemplate,
    read: TemplateReadHandler,
    options?: TemplateOptions,
  ): () => void {
    return this.features.addTemplate(template, read, options);
  }

  prompt(prompt: Prompt, handler: PromptHandler, options?: PromptOptions): () => void {
    return this.features.addPrompt(prompt, handler, options);
  }

  /**
   * Tells subscribed clients that a resource's contents changed: legacy sessions that sent
   * resources/subscribe, and listen streams whose resourceSubscriptions name the uri.
   */
  resourceUpdated(uri: string): void {
    this.subscriptionEvents.publish({ type: "resourceUpdated", uri });
  }

  /** Listens for changes to the tool, resource or prompt lists (used by subscriptions). */
  onListChanged(listener: (kind: FeatureKind) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Serves one transport, started at once; it runs until the transport or the server closes. */
  connect(transport: Transport): void {
    this.serve(transport);
  }

  /** @internal connect() for the transports, which keep the connection (its session, its era). */
  serve(transport: Transport): ServerConnection {
    const connection = new ServerConnection(this, transport);
    this.connections.add(connection);
    connection.start();
    return connection;
  }

  /** @internal ServerCore: the connection's session has closed. */
  connectionClosed(connection: ServerConnection): void {
    this.connections.delete(connection);
  }

  /**
   * Gracefully shuts every connection down; each open subscriptions/listen stream ends with a
   * completion result first.
   */
  async close(): Promise<void> {
    await Promise.all([...this.connections].map((connection) => connection.session.shutdown()));
    for (const extension of this.extensions.values()) await extension.close?.();
    this.peerFaults.flush();
  }

  /** @internal The initialized legacy sessions, oldest first (for servers that relay another). */
  legacySessions(): LegacySessionView[] {
    const sessions: LegacySessionView[] = [];
    for (const connection of this.connections) {
      const view = connection.legacySession;
      if (view) sessions.push(view);
    }
    return sessions;
  }

  /** @internal The same for both eras here; a subclass (the gateway) may tell them apart. */
  capabilities(era: Era): ServerCapabilities {
    const { features } = this;
    const capabilities: ServerCapabilities = {};
    if (features.tools.size > 0) capabilities.tools = { listChanged: true };
    // Modern clients subscribe to resources through subscriptions/listen.
    if (features.resources.size > 0 || features.templates.size > 0) {
      capabilities.resources = { subscribe: true, listChanged: true };
    }
    if (features.prompts.size > 0) capabilities.prompts = { listChanged: true };
    if (features.prompts.size > 0 || features.templates.size > 0) capabilities.completions = {};
    // Any handler may call context.log, so every server can emit notifications/message, and
    // one that can MUST declare `logging` (2026-07-28 server/utilities/logging.mdx,
    // Capabilities), modern too: there the level is per request (_meta), legacy has setLevel.
    capabilities.logging = {};
    for (const extension of this.extensions.values()) {
      const fields = extension.capabilities?.(era);
      if (fields !== undefined) Object.assign(capabilities, fields);
      const offered = extensionCapability(extension, era);
      if (offered === undefined) continue;
      capabilities.extensions = Object.assign({}, capabilities.extensions, {
        [extension.id]: offered,
      });
    }
    const extra = this.options.capabilities;
    if (capabilities.extensions && extra?.extensions) {
      return {
        ...capabilities,
        ...extra,
        extensions: { ...capabilities.extensions, ...extra.extensions },
      };
    }
    return { ...capabilities, ...extra };
  }

  /**
   * @internal for transports and connections. Not async: it hands on the feature's own answer
   * (a promise layer here cost every request a resolve step), so it throws or rejects.
   */
  handle(
    method: string,
    params: JsonObject,
    context: HandlerContext,
  ): JsonObject | Promise<JsonObject> {
    const { features } = this;
    const pageSize = this.options.pageSize;
    // Read only: the result of server/discover gets a fresh copy of its own.
    const capabilities = this.offeredFor(context.era);
    switch (method) {
      case "server/discover": {
        const result: JsonObject = {
          supportedVersions: this.servedVersions,
          capabilities: this.capabilities(context.era) as JsonObject,
        };
        if (this.options.instructions !== undefined)
          result.instructions = this.options.instructions;
        return result;
      }
      case "tools/list":
        if (capabilities.tools) return features.listTools(params, pageSize, context.era);
        break;
      case "tools/call":
        if (capabilities.tools) return features.callTool(params, context);
        break;
      case "resources/list":
        if (capabilities.resources) return features.listResources(params, pageSize);
        break;
      case "resources/templates/list":
        if (capabilities.resources) return features.listTemplates(params, pageSize);
        break;
      case "resources/read":
        if (capabilities.resources) return this.readResource(params, context);
        break;
      case "prompts/list":
        if (capabilities.prompts) return features.listPrompts(params, pageSize);
        break;
      case "prompts/get":
        if (capabilities.prompts) return features.getPrompt(params, context);
        break;
      case "completion/complete":
        if (capabilities.completions) return features.complete(params) as Promise<JsonObject>;
        break;
    }
    const own = this.extensionMethods.get(method);
    // An extension's methods exist while it is offered.
    if (own && this.offers(own.extension, capabilities, context.era)) {
      return own.handler(params, context);
    }
    throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  }

  /** resources/read, with the caching hints on modern results. */
  private async readResource(params: JsonObject, context: HandlerContext): Promise<JsonObject> {
    const { result, cache } = await this.features.readResource(params, context);
    if (cache && context.era === "modern") Object.assign(result, cache);
    return result;
  }

  /** Whether `capabilities` (for `era`) offer `extension` (see ServerExtension.isOffered). */
  private offers(extension: ServerExtension, capabilities: ServerCapabilities, era: Era): boolean {
    if (extension.isOffered) return extension.isOffered(capabilities, era);
    return (capabilities.extensions as JsonObject | undefined)?.[extension.id] !== undefined;
  }

  /** @internal ServerCore.listenOwner: from the first offered extension that hears task ids. */
  listenOwner(clientCapabilities: ClientCapabilities, principal: unknown): string | undefined {
    const capabilities = this.offeredFor("modern");
    for (const extension of this.extensions.values()) {
      if (extension.listenOwner && this.offers(extension, capabilities, "modern")) {
        return extension.listenOwner(clientCapabilities, principal);
      }
    }
    return undefined;
  }

  /** @internal for transports and connections. */
  decorateModern(method: string, returned: JsonObject): JsonObject {
    // Copy: handlers may hand back shared objects, which must not collect our fields. Not
    // `{ ...returned }`: on Node 20 a spread copy that then gains a property (resultType, _meta)
    // kept each request's objects alive through young-generation GC (~120 KB promoted per
    // scavenge at c=64, a young generation grown to 2 x 16 MiB); Object.assign does not.
    const result: JsonObject = Object.assign({}, returned);
    if (result.resultType === undefined) result.resultType = "complete";
    if (result.resultType === "complete" && CACHEABLE_METHODS.has(method)) {
      const key = method as keyof typeof DEFAULT_CACHE_HINTS;
      const hint = this.options.caching?.[key] ?? DEFAULT_CACHE_HINTS[key];
      if (result.ttlMs === undefined) Object.assign(result, hint);
      else repairHandlerHint(method, result, hint, this.reportError);
    }
    if (this.options.includeServerInfo !== false) {
      const own = result._meta as JsonObject | undefined;
      const meta: JsonObject = own === undefined ? {} : Object.assign({}, own);
      meta[META.serverInfo] = this.options.serverInfo;
      result._meta = meta;
    }
    return result;
  }

  /** capabilities(era), made once per change of the feature lists (see `offered`). */
  private offeredFor(era: Era): ServerCapabilities {
    let offered = this.offered[era];
    if (!offered) {
      offered = this.capabilities(era);
      this.offered[era] = offered;
    }
    return offered;
  }

  /** @internal for transports and connections. */
  reportError = (error: Error): void => {
    const fault = error instanceof LocalError ? error.peerFault : undefined;
    if (fault === undefined) this.writeError(error);
    else this.peerFaults.log(fault, error);
  };

  private writeError(error: Error): void {
    if (this.options.onError) this.options.onError(error);
    else writeStderr(`mcpwire server: ${error.message}\n`);
  }

  private deliverToLegacy(event: SubscriptionEvent): void {
    for (const extension of this.extensions.values()) {
      if (extension.deliverToLegacy?.(event, this.legacyPeers())) return;
    }
    if (event.type === "resourceUpdated") {
      for (const connection of this.connections) {
        connection.notifyResourceUpdated(event.uri, event.id);
      }
      return;
    }
    if (event.type !== "listChanged") return; // an extension's own, which none delivered
    for (const connection of this.connections) connection.notifyListChanged(event.kind, event.id);
    for (const listener of this.changeListeners) listener(event.kind);
  }

  private *legacyPeers(): Generator<LegacyPeer> {
    for (const connection of this.connections) if (connection.era === "legacy") yield connection;
  }

  /**
   * The OAuth scopes the target of a request was registered as needing (the `scopes` option of
   * a tool, prompt, resource or resource template), if any; the HTTP binding checks them.
   * @internal
   */
  targetScopes(method: string, params: JsonObject | undefined): readonly string[] | undefined {
    return this.features.targetScopes(method, params);
  }

  /** @internal Whether a registered tool takes part in the extension that brought `hook`. */
  hasToolsAdoptedBy(hook: ToolCallHook): boolean {
    return this.features.tools.adoptedBy(hook);
  }

  /** @internal A registered tool's definition (its inputSchema as JSON Schema), e.g. for HTTP header checks. */
  toolDefinition(name: string) {
    return this.features.tools.get(name)?.tool;
  }
}
