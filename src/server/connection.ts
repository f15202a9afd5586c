import {
  ErrorCode,
  InvalidParamsError,
  InvalidRequestError,
  isPlainObject,
  JsonRpcError,
  LocalError,
  UnsupportedProtocolVersionError,
} from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import { isThenable } from "../platform/thenable.js";
import { readImplementation } from "../protocol/implementation.js";
import type { ClientCapabilities, Implementation, LoggingLevel } from "../protocol/mcp-types.js";
import { isLoggingLevel, LOGGING_LEVELS } from "../protocol/mcp-types.js";
import { META } from "../protocol/meta.js";
import type { IncomingRequestContext, SessionDispatcher } from "../protocol/session.js";
import { Session } from "../protocol/session.js";
import type { MessageContext, Transport } from "../protocol/transport.js";
import { type Era, isLegacyVersion, LATEST_LEGACY_VERSION } from "../protocol/versions.js";
import { ignoring } from "../text/ignored-error.js";
import { createHandlerContext, type HandlerContext } from "./context.js";
import { InitializedGate } from "./initialized-gate.js";
import {
  DEFAULT_MAX_URIS_PER_CONNECTION,
  ListenUriCounter,
  serveListenRequest,
} from "./listen-request.js";
import {
  type RequestMiddlewareContext,
  type RoutedRequest,
  runNotificationChain,
  runRequestChain,
  runSentNotificationChain,
  type ServerMiddleware,
} from "./middleware-chain.js";
import { INPUT_METHODS, InputRound } from "./mrtr/round.js";
import type { LegacySessionView, ServerCore } from "./server-core.js";

/** Methods the 2026-07-28 revision removed; a modern request for them gets -32601. */
const REMOVED_IN_MODERN = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
]);

/** What an `initialize` established on this connection (legacy era only). */
interface LegacyState {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  initialized: boolean;
  logLevel: LoggingLevel | undefined;
  /** Made on the first resources/subscribe: most sessions never send one. */
  subscriptions: Set<string> | undefined;
  /** Server-to-client requests held until `initialized`; made when the first one waits. */
  gate?: InitializedGate;
}

/**
 * What a legacy connection negotiated, as plain JSON: enough for another process to carry the
 * session on (a legacy HTTP session rebuilt after a restart) without a new `initialize`.
 */
export interface LegacySnapshot {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  /** Whether `notifications/initialized` has arrived. */
  initialized: boolean;
  logLevel?: LoggingLevel;
  subscriptions: string[];
}

/**
 * One client connection to an McpServer: a Session plus what the era rules need. A request
 * carrying modern `_meta` is served statelessly; `initialize` switches the connection to legacy
 * semantics for the versions it negotiated.
 */
/** What a notification sent on a modern connection is routed as. */
const MODERN_SENT: RoutedRequest = Object.freeze({
  era: "modern",
  protocolVersion: undefined,
  clientCapabilities: undefined,
  meta: undefined,
});

export class ServerConnection implements SessionDispatcher {
  readonly session: Session;
  /**
   * What this connection names in server/discover and -32022: the server's versions, unless
   * whoever carries the connection serves fewer (an HTTP endpoint with legacy turned off).
   */
  servedVersions: string[];
  private readonly core: ServerCore;
  private legacy: LegacyState | undefined;
  /**
   * Legacy: per subscribed uri, what the event source's watch() gave back (when it has one).
   * Made on first use: an idle legacy session should cost as little as possible.
   */
  private watches: Map<string, Promise<() => void>> | undefined;
  /** Resource uris the open listen streams watch (made on the first listen). */
  private listening: ListenUriCounter | undefined;

  constructor(core: ServerCore, transport: Transport) {
    this.core = core;
    this.servedVersions = core.servedVersions;
    // This connection is its session's dispatcher: no closures per connection.
    this.session = new Session(transport, core.sessionOptions, this);
  }

  /**
   * The session id the transport carries (Transport.sessionId): the same on every instance of a
   * cluster serving the session, which is what keys its anonymous tasks (legacySessionKey).
   */
  get sessionId(): string | undefined {
    return this.session.transport.sessionId;
  }

  /** A notification the server sends here, through the middleware that applies to it. */
  sendingNotification(
    method: string,
    params: JsonObject | undefined,
    send: (params: JsonObject | undefined) => Promise<void>,
  ): Promise<void> {
    const chain = this.core.middleware.chainFor(method);
    if (!chain) return send(params);
    // A legacy session's facts; a modern connection's notifications name no version of their own.
    const routed = this.routedNotification(undefined) ?? MODERN_SENT;
    return runSentNotificationChain(chain, method, params, routed, this.session.transport, send);
  }

  handleNotification(method: string, params: JsonObject, context: MessageContext): void {
    this.throughMiddleware(method, params, context, () => this.notified(method));
  }

  /** notifications/cancelled and /progress, before the engine acts on them. */
  receivingEngineNotification(
    method: string,
    params: JsonObject,
    context: MessageContext,
    consume: (params: JsonObject) => void,
  ): void {
    this.throughMiddleware(method, params, context, consume);
  }

  /** A notification from the client, through the middleware that applies to it (if any). */
  private throughMiddleware(
    method: string,
    params: JsonObject,
    context: MessageContext,
    deliver: (params: JsonObject) => void,
  ): void {
    const chain = this.core.middleware.chainFor(method);
    if (!chain) {
      deliver(params);
      return;
    }
    const meta = isPlainObject(params._meta) ? params._meta : undefined;
    runNotificationChain(
      chain,
      method,
      params,
      this.routedNotification(meta),
      context,
      this.session.transport,
      deliver,
      this.core.reportError,
    );
  }

  /** A notification the middleware let through (or there was none). */
  private notified(method: string): void {
    if (method === "notifications/initialized" && this.legacy) {
      this.legacy.initialized = true;
      this.legacy.gate?.open();
    }
  }

  /** What a notification's middleware learns of its era: the session's, or its own `_meta`'s. */
  private routedNotification(meta: JsonObject | undefined): RoutedRequest | undefined {
    const legacy = this.legacy;
    if (legacy) {
      return {
        era: "legacy",
        protocolVersion: legacy.protocolVersion,
        clientCapabilities: legacy.clientCapabilities,
        meta,
      };
    }
    const version = meta?.[META.protocolVersion];
    if (typeof version !== "string") return undefined;
    const capabilities = meta![META.clientCapabilities];
    return {
      era: "modern",
      protocolVersion: version,
      clientCapabilities: isPlainObject(capabilities) ? capabilities : undefined,
      meta,
    };
  }

  sessionClosed(): void {
    this.legacyEnded();
    this.core.connectionClosed(this);
  }

  /** This connection's legacy session once initialized (for servers that relay another). */
  get legacySession(): LegacySessionView | undefined {
    const legacy = this.legacy;
    if (!legacy?.initialized) return undefined;
    const { session } = this;
    return {
      clientCapabilities: legacy.clientCapabilities,
      logLevel: legacy.logLevel,
      notify: (method, params) => session.notify(method, params),
      request: (method, params, options) => session.request(method, params, options),
    };
  }

  get era(): Era | undefined {
    return this.legacy ? "legacy" : undefined;
  }

  /** Resource uris watched here right now: open listen streams and legacy subscriptions. */
  get watchedUris(): number {
    return (this.legacy?.subscriptions?.size ?? 0) + (this.listening?.total ?? 0);
  }

  start(): void {
    this.session.start();
  }

  /**
   * Legacy clients learn about changes by notification; modern ones through subscriptions.
   * `origin`: the subscription event's id (SendOptions.origin).
   */
  notifyListChanged(kind: "tools" | "resources" | "prompts", origin?: string): void {
    if (!this.legacy?.initialized) return;
    const method = `notifications/${kind}/list_changed`;
    void this.session
      .notify(method, undefined, { origin })
      .catch(ignoring("sending a list_changed notification"));
  }

  /** A notification for this legacy session once it is initialized (LegacyPeer, for extensions). */
  notifyInitialized(method: string, params: JsonObject, origin?: string): void {
    if (!this.legacy?.initialized) return;
    void this.session.notify(method, params, { origin }).catch(ignoring(`sending ${method}`));
  }

  notifyResourceUpdated(uri: string, origin?: string): void {
    if (!this.legacy?.subscriptions?.has(uri)) return;
    const method = "notifications/resources/updated";
    void this.session
      .notify(method, { uri }, { origin })
      .catch(ignoring("sending notifications/resources/updated"));
  }

  private async subscribe(legacy: LegacyState, uri: string): Promise<void> {
    const perConnection =
      this.core.options.subscriptions?.maxUrisPerConnection ?? DEFAULT_MAX_URIS_PER_CONNECTION;
    const subscribed = legacy.subscriptions?.size ?? 0;
    if (!legacy.subscriptions?.has(uri) && subscribed >= perConnection) {
      throw new InvalidParamsError(
        `this session already has ${subscribed} resource subscriptions; this server allows at most ${perConnection}`,
        { limit: perConnection },
      );
    }
    const source = this.core.subscriptionEvents;
    this.watches ??= new Map();
    const { watches } = this;
    const limit = source.maxWatchesPerSubscriber;
    if (source.watch && limit !== undefined && !watches.has(uri) && watches.size >= limit) {
      // The legacy side of the listen-stream cap (subscriptions.ts): per session, not per stream.
      throw new InvalidParamsError(
        `this session already has ${watches.size} resource subscriptions; this server allows at most ${limit}`,
        { limit },
      );
    }
    if (source.watch && !watches.has(uri)) {
      const watching = source.watch(uri);
      watches.set(uri, watching);
      try {
        await watching;
      } catch (error) {
        if (watches.get(uri) === watching) watches.delete(uri);
        throw error;
      }
      // Unsubscribed (or the session ended) while the watch was being set up.
      if (watches.get(uri) !== watching) return;
    }
    legacy.subscriptions ??= new Set();
    legacy.subscriptions.add(uri);
  }

  private unsubscribe(legacy: LegacyState, uri: string): void {
    legacy.subscriptions?.delete(uri);
    const watching = this.watches?.get(uri);
    this.watches?.delete(uri);
    watching?.then(
      (stop) => stop(),
      () => {},
    );
  }

  /** The session is gone: what it watched is released, and a relay hears its level went. */
  private legacyEnded(): void {
    const legacy = this.legacy;
    if (!legacy) return;
    legacy.gate?.abandon(new LocalError("closed", "the legacy session ended or started afresh"));
    for (const uri of [...(this.watches?.keys() ?? [])]) this.unsubscribe(legacy, uri);
    if (legacy.logLevel !== undefined) {
      legacy.logLevel = undefined;
      this.logLevelsChanged();
    }
  }

  /** A relay hears that a session's level changed; a failure there changes nothing here. */
  private logLevelsChanged(): void {
    void Promise.resolve(this.core.legacyLogLevelsChanged?.()).catch(
      ignoring("passing a session's log level on"),
    );
  }

  /** What `initialize` established here (and changed since); undefined before it. */
  legacySnapshot(): LegacySnapshot | undefined {
    const legacy = this.legacy;
    if (!legacy) return undefined;
    const snapshot: LegacySnapshot = {
      protocolVersion: legacy.protocolVersion,
      clientCapabilities: legacy.clientCapabilities,
      initialized: legacy.initialized,
      subscriptions: [...(legacy.subscriptions ?? [])],
    };
    if (legacy.clientInfo !== undefined) snapshot.clientInfo = legacy.clientInfo;
    if (legacy.logLevel !== undefined) snapshot.logLevel = legacy.logLevel;
    return snapshot;
  }

  /** Carries on a legacy session negotiated elsewhere, as if its `initialize` had come here. */
  restoreLegacy(snapshot: LegacySnapshot): void {
    const legacy: LegacyState = {
      protocolVersion: snapshot.protocolVersion,
      clientCapabilities: snapshot.clientCapabilities,
      clientInfo: snapshot.clientInfo,
      initialized: snapshot.initialized,
      logLevel: snapshot.logLevel,
      subscriptions: undefined,
    };
    this.legacy = legacy;
    // Subscribed again here, so that whatever watches the resources in this process hears of it.
    for (const uri of snapshot.subscriptions) {
      void this.subscribe(legacy, uri).catch((error) => this.core.reportError(error));
    }
    if (legacy.logLevel !== undefined) this.logLevelsChanged();
  }

  /**
   * What another instance of a cluster changed in this session (level, subscriptions,
   * `initialized`); the negotiated version and capabilities never change.
   */
  updateLegacy(snapshot: LegacySnapshot): void {
    const legacy = this.legacy;
    if (!legacy) return;
    if (snapshot.initialized && !legacy.initialized) this.notified("notifications/initialized");
    const wanted = new Set(snapshot.subscriptions);
    for (const uri of [...(legacy.subscriptions ?? [])]) {
      if (!wanted.has(uri)) this.unsubscribe(legacy, uri);
    }
    for (const uri of wanted) {
      if (legacy.subscriptions?.has(uri)) continue;
      void this.subscribe(legacy, uri).catch((error) => this.core.reportError(error));
    }
    if (snapshot.logLevel !== legacy.logLevel) {
      legacy.logLevel = snapshot.logLevel;
      this.logLevelsChanged();
    }
  }

  /**
   * Every request (the session has no handlers of its own). Not async: the session awaits what
   * comes back and catches what is thrown, so a wrapper promise would only add a resolve step.
   */
  handleRequest(
    params: JsonObject,
    context: IncomingRequestContext,
  ): JsonObject | Promise<JsonObject> {
    const { method } = context;
    const meta = isPlainObject(params._meta) ? params._meta : undefined;
    if (method === "initialize") {
      const chain = this.core.middleware.chainFor(method);
      if (!chain) return this.initialize(params);
      const routed: RoutedRequest = {
        era: "legacy",
        protocolVersion:
          typeof params.protocolVersion === "string" ? params.protocolVersion : undefined,
        clientCapabilities: isPlainObject(params.capabilities) ? params.capabilities : undefined,
        meta,
      };
      return this.throughChain(chain, params, routed, context, async (ctx) =>
        this.initialize(ctx.params),
      );
    }
    const modernShaped = meta !== undefined && META.protocolVersion in meta;
    if (modernShaped || !this.legacy) return this.dispatchModern(params, meta, context);
    return this.dispatchLegacy(params, meta ?? {}, context, this.legacy);
  }

  private initialize(params: JsonObject): JsonObject {
    const { core } = this;
    if (!core.legacyEnabled) {
      throw new JsonRpcError(
        ErrorCode.MethodNotFound,
        `This server does not support initialize; it speaks protocol versions ${core.modernVersions.join(", ")} (send requests with _meta ${META.protocolVersion})`,
        { supported: core.modernVersions },
      );
    }
    const requested = params.protocolVersion;
    if (typeof requested !== "string") {
      throw new InvalidParamsError('initialize needs a string "protocolVersion"');
    }
    const protocolVersion = isLegacyVersion(requested) ? requested : LATEST_LEGACY_VERSION;
    this.legacyEnded(); // a second initialize starts afresh
    this.legacy = {
      protocolVersion,
      clientCapabilities: isPlainObject(params.capabilities) ? params.capabilities : {},
      clientInfo: readImplementation(params.clientInfo),
      initialized: false,
      logLevel: undefined,
      subscriptions: undefined,
    };
    const result: JsonObject = {
      protocolVersion,
      capabilities: core.capabilities("legacy"),
      serverInfo: core.options.serverInfo,
    };
    if (core.options.instructions !== undefined) result.instructions = core.options.instructions;
    return result;
  }

  /**
   * Not async: without middleware a tool that answers with a value is answered without a promise
   * (serveModern), and the seam costs nothing when unused.
   */
  private dispatchModern(
    params: JsonObject,
    meta: JsonObject | undefined,
    context: IncomingRequestContext,
  ): JsonObject | Promise<JsonObject> {
    const { core } = this;
    const { method } = context;
    if (!core.modernEnabled) {
      throw new InvalidRequestError(
        `Send initialize first (this server speaks ${core.legacyVersions.join(", ")})`,
      );
    }
    const version = meta?.[META.protocolVersion];
    const capabilities = meta?.[META.clientCapabilities];
    if (!meta || typeof version !== "string" || !isPlainObject(capabilities)) {
      throw new InvalidParamsError(
        `Every request needs _meta with ${META.protocolVersion} (string) and ${META.clientCapabilities} (object)` +
          (core.legacyEnabled ? ", or an initialize handshake first" : ""),
      );
    }
    if (!core.modernVersions.includes(version)) {
      throw new UnsupportedProtocolVersionError(this.servedVersions, version);
    }
    const logLevel = meta[META.logLevel];
    // An unknown level is refused, not ignored: the client asked for logs it would silently
    // never get (2026-07-28 server/utilities/logging.mdx, Error Handling: -32602).
    if (logLevel !== undefined && !isLoggingLevel(logLevel)) {
      throw new InvalidParamsError(
        `Unknown ${META.logLevel}: expected one of ${LOGGING_LEVELS.join(", ")}`,
      );
    }
    if (REMOVED_IN_MODERN.has(method)) {
      throw new JsonRpcError(
        ErrorCode.MethodNotFound,
        `Method not found: ${method} (removed in ${version})`,
      );
    }
    const chain = core.middleware.chainFor(method);
    if (method === "subscriptions/listen") {
      if (!chain) {
        return serveListenRequest(core, this.listenCounter(), params, capabilities, context);
      }
      const routed = modernRouted(version, capabilities, meta);
      return this.throughChain(chain, params, routed, context, this.serveListenChained);
    }
    if (!chain)
      return this.serveModern(params, meta, version, capabilities, logLevel, context, true);
    return this.throughChain(
      chain,
      params,
      modernRouted(version, capabilities, meta),
      context,
      this.serveModernChained,
      this.finishAfterChain,
    );
  }

  // serveModern and finishModern as the chain's ends: one function each per connection, none
  // per request.
  // async: the chain's `next()` is promised a promise.
  private readonly serveModernChained = async (
    ctx: RequestMiddlewareContext<ModernRouted>,
  ): Promise<JsonObject> => {
    const { meta, protocolVersion, clientCapabilities } = ctx.routed;
    const logLevel = meta[META.logLevel];
    return this.serveModern(
      ctx.params,
      meta,
      protocolVersion,
      clientCapabilities,
      logLevel,
      ctx.request,
      false,
    );
  };
  private readonly finishAfterChain = (method: string, result: JsonObject): JsonObject =>
    this.finishModern(method, result);
  private readonly serveListenChained = (
    ctx: RequestMiddlewareContext<ModernRouted>,
  ): Promise<JsonObject> =>
    serveListenRequest(
      this.core,
      this.listenCounter(),
      ctx.params,
      ctx.routed.clientCapabilities,
      ctx.request,
    );

  private listenCounter(): ListenUriCounter {
    this.listening ??= new ListenUriCounter();
    return this.listening;
  }

  /** A modern result as it goes out: resultType, caching hints, serverInfo. */
  private finishModern(method: string, result: JsonObject): JsonObject {
    const { core } = this;
    if (method === "server/discover" && this.servedVersions !== core.servedVersions) {
      result = Object.assign({}, result, { supportedVersions: this.servedVersions });
    }
    return core.decorateModern(method, result);
  }

  /**
   * Runs `chain` around `serve`: the middleware sees the request after routing and the era's
   * checks, and `serve` gets the params as the middleware left them.
   */
  private throughChain<R extends RoutedRequest>(
    chain: readonly ServerMiddleware[],
    params: JsonObject,
    routed: R,
    context: IncomingRequestContext,
    serve: (ctx: RequestMiddlewareContext<R>) => Promise<JsonObject>,
    finish?: (method: string, result: JsonObject) => JsonObject,
  ): Promise<JsonObject> {
    return runRequestChain(
      chain,
      params,
      routed,
      context,
      this.session.transport,
      serve,
      this.core.reportError,
      finish,
    );
  }

  /**
   * A modern request's handler, and its input round's outcome: an input-required answer is an
   * ordinary result to the middleware around it. `finish`: decorated for the wire (no middleware);
   * otherwise bare, decorated after the chain. Not async: a handler that answered with a value
   * is answered here in the same step (the session awaits once, for the whole request).
   */
  private serveModern(
    params: JsonObject,
    meta: JsonObject,
    version: string,
    capabilities: JsonObject,
    logLevel: unknown,
    context: IncomingRequestContext,
    finish: boolean,
  ): JsonObject | Promise<JsonObject> {
    const { core } = this;
    const { method } = context;
    // Only these methods may answer input_required; everywhere else input calls fail.
    const inputRound = INPUT_METHODS.has(method)
      ? new InputRound(core.requestStates, method, params, context.transport.principal)
      : undefined;
    const handlerContext = createHandlerContext({
      requestId: context.id,
      method,
      // The session makes the request's AbortSignal only if the handler reads it.
      request: context,
      era: "modern",
      protocolVersion: version,
      clientCapabilities: capabilities as ClientCapabilities,
      clientInfo: readImplementation(meta[META.clientInfo]),
      principal: context.transport.principal,
      meta,
      logLevel: isLoggingLevel(logLevel) ? logLevel : undefined,
      notify: context.notify,
      inputRound,
    });
    let handled: JsonObject | Promise<JsonObject>;
    try {
      handled = core.handle(method, params, handlerContext);
    } catch (error) {
      return this.modernFailed(method, inputRound, finish, error);
    }
    if (!isThenable(handled)) return this.modernAnswered(method, inputRound, finish, handled);
    return handled.then(
      (result) => this.modernAnswered(method, inputRound, finish, result),
      (error) => this.modernFailed(method, inputRound, finish, error),
    );
  }

  /** The handler's result, unless its input round ends the request otherwise. */
  private modernAnswered(
    method: string,
    inputRound: InputRound | undefined,
    finish: boolean,
    result: JsonObject,
  ): JsonObject {
    // A handler that swallowed the stop signal still owes the client its questions.
    const outcome = inputRound?.outcome();
    if (outcome && "error" in outcome) throw outcome.error;
    if (outcome) result = outcome.result;
    return finish ? this.finishModern(method, result) : result;
  }

  /** The handler threw: its input round's outcome (input still needed), else the error. */
  private modernFailed(
    method: string,
    inputRound: InputRound | undefined,
    finish: boolean,
    error: unknown,
  ): JsonObject {
    const outcome = inputRound?.outcome();
    if (!outcome) throw error;
    if ("error" in outcome) throw outcome.error;
    return finish ? this.finishModern(method, outcome.result) : outcome.result;
  }

  /** Not async, for the reason dispatchModern is not. */
  private dispatchLegacy(
    params: JsonObject,
    meta: JsonObject,
    context: IncomingRequestContext,
    legacy: LegacyState,
  ): Promise<JsonObject> {
    const chain = this.core.middleware.chainFor(context.method);
    if (!chain) return this.serveLegacy(params, meta, context, legacy);
    const routed: RoutedRequest = {
      era: "legacy",
      protocolVersion: legacy.protocolVersion,
      clientCapabilities: legacy.clientCapabilities,
      meta,
    };
    return this.throughChain(chain, params, routed, context, (ctx) =>
      this.serveLegacy(ctx.params, meta, context, legacy),
    );
  }

  private async serveLegacy(
    params: JsonObject,
    meta: JsonObject,
    context: IncomingRequestContext,
    legacy: LegacyState,
  ): Promise<JsonObject> {
    const { method } = context;
    switch (method) {
      case "ping":
        return {};
      case "logging/setLevel": {
        if (!isLoggingLevel(params.level)) throw new InvalidParamsError("Unknown logging level");
        legacy.logLevel = params.level;
        await this.core.legacyLogLevelsChanged?.();
        return {};
      }
      case "resources/subscribe":
      case "resources/unsubscribe": {
        if (typeof params.uri !== "string") throw new InvalidParamsError(`${method} needs a "uri"`);
        if (method === "resources/subscribe") await this.subscribe(legacy, params.uri);
        else this.unsubscribe(legacy, params.uri);
        return {};
      }
      case "server/discover":
        throw new JsonRpcError(ErrorCode.MethodNotFound, "server/discover needs modern _meta");
    }
    const handlerContext: HandlerContext = createHandlerContext({
      requestId: context.id,
      method,
      request: context,
      era: "legacy",
      protocolVersion: legacy.protocolVersion,
      clientCapabilities: legacy.clientCapabilities,
      clientInfo: legacy.clientInfo,
      principal: context.transport.principal,
      meta,
      // Legacy servers may log at any time; setLevel only raises the floor.
      logLevel: legacy.logLevel ?? "debug",
      notify: context.notify,
      legacyConnection: this,
      requestClient: async (clientMethod, clientParams) => {
        if (!legacy.initialized) {
          legacy.gate ??= new InitializedGate();
          const timeoutMs = this.core.sessionOptions.requestTimeoutMs ?? 60_000;
          await legacy.gate.wait(clientMethod, context.signal, timeoutMs);
        }
        return this.session.request(clientMethod, clientParams, {
          signal: context.signal,
          relatedRequestId: context.id,
        });
      },
    });
    return this.core.handle(method, params, handlerContext);
  }
}

/** A modern request's facts, all known once dispatchModern's checks passed. */
interface ModernRouted extends RoutedRequest {
  protocolVersion: string;
  clientCapabilities: JsonObject;
  meta: JsonObject;
}

function modernRouted(version: string, capabilities: JsonObject, meta: JsonObject): ModernRouted {
  return { era: "modern", protocolVersion: version, clientCapabilities: capabilities, meta };
}
