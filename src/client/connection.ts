import { JsonRpcError, LocalError, UnsupportedProtocolVersionError } from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import { isThenable } from "../platform/thenable.js";
import {
  checkExtension,
  type Extension,
  type ExtensionMethod,
  extensionCapability,
} from "../protocol/extension.js";
import type {
  ClientCapabilities,
  Implementation,
  LoggingLevel,
  ServerCapabilities,
  SubscriptionFilter,
} from "../protocol/mcp-types.js";
import { MiddlewareStack } from "../protocol/middleware.js";
import type { RequestOptions } from "../protocol/outgoing.js";
import { Session } from "../protocol/session.js";
import type { Transport } from "../protocol/transport.js";
import { type Era, LATEST_LEGACY_VERSION, LATEST_MODERN_VERSION } from "../protocol/versions.js";
import type { ClientCallHook, FinishedCall, OutgoingCall, PreparedCall } from "./call-hooks.js";
import { chooseModernVersion, discoverModern, probeEra } from "./era-detection.js";
import {
  legacyInitialize,
  modernMeta,
  type ServerState,
  stateFromDiscover,
  withMeta,
} from "./handshake.js";
import {
  type ChainFacts,
  type ClientMiddleware,
  type ClientMiddlewareContext,
  notifyThroughChain,
  sendNotificationThroughChain,
  sendThroughChain,
} from "./middleware-chain.js";
import { DEFAULT_MAX_INPUT_ROUNDS, resolveInputRequired } from "./mrtr.js";
import { ResultCache } from "./result-cache.js";
import { completeResult } from "./results.js";
import { capabilitiesFromHandlers, installServerRequestHandlers } from "./server-requests.js";
import type { Subscription } from "./subscription.js";
import { SubscriptionRegistry } from "./subscriptions.js";
import type {
  CallOptions,
  ClientDiscoverResult,
  ConnectOptions,
  McpClientOptions,
  ServerRequestContext,
  TransportFactory,
} from "./types.js";

const DEFAULT_PROBE_TIMEOUT_MS = 3000;
/** Transports that send a request as text: none of them hands on the params object itself. */
const SERIALISING = new Set<string | undefined>(["stdio", "socket", "http", "sse", "stream"]);
/** The requests a modern server may answer with input_required (MRTR "Supported Requests"). */
const INPUT_METHODS = new Set(["tools/call", "prompts/get", "resources/read"]);

/**
 * The connection half of McpClient: era detection and handshakes, the era-aware request path
 * (modern `_meta`, resultType, ttlMs caching), notifications and supervised restarts.
 */
export class ClientConnection {
  private readonly options: McpClientOptions;
  /** What initialize declares, and what modern requests do (with the extensions installed). */
  private capabilities: ClientCapabilities;
  private modernCapabilities: ClientCapabilities;
  /** Installed extensions by id, and the server-to-client methods they answer. */
  private readonly extensions = new Map<string, AnyClientExtension>();
  private readonly extensionMethods = new Map<string, ExtensionMethod<ServerRequestContext>>();
  /** The installed extensions' parts in each request (see ClientCallHook). */
  private readonly callHooks: ClientCallHook[] = [];
  private readonly cache: ResultCache | undefined;
  private session: Session | undefined;
  /** The transport under `session`, asked which credentials a request carries. */
  private transport: Transport | undefined;
  private state: ServerState | undefined;
  protected logLevel: LoggingLevel | undefined;
  private connecting = false;
  /**
   * Aborted when connect() is given up (the caller's signal, or close() mid-handshake): no
   * request of the handshake waits on, and no fresh transport is opened after it.
   */
  private connectAbort: AbortController | undefined;
  /** Requests wait here while a supervised transport restarts its server and we re-handshake. */
  protected ready: Promise<void> = Promise.resolve();
  private restoring = false;
  /** Legacy resource subscriptions, renewed when a supervised transport restarts the server. */
  protected readonly subscriptions = new Set<string>();
  private resumeGate: { resolve(): void; reject(error: Error): void } | undefined;
  /** Subscriptions opened by listen(), both eras. */
  protected readonly listens: SubscriptionRegistry;
  /** @internal What use() added; requests skip it while it is empty. */
  protected readonly middleware = new MiddlewareStack<ClientMiddlewareContext>();
  /**
   * The reserved `_meta` of modern requests (frozen, shared by them while no middleware is
   * installed), made again when the version, capabilities or log level it says change.
   */
  private modernBase:
    | {
        protocolVersion: string;
        capabilities: ClientCapabilities;
        logLevel: LoggingLevel | undefined;
        meta: JsonObject;
      }
    | undefined;

  constructor(options: McpClientOptions) {
    this.options = options;
    this.listens = new SubscriptionRegistry({
      era: () => this.requireState().era,
      serverCapabilities: () => this.requireState().capabilities,
      listen: (params, requestOptions) =>
        this.send(
          this.requireSession(),
          "subscriptions/listen",
          this.wireParams(params, undefined),
          requestOptions,
        ),
      request: (method, params) => this.request(method, params),
      restarting: () => this.resumeGate !== undefined,
      explicitUris: () => this.subscriptions,
    });
    this.capabilities = options.capabilities ?? capabilitiesFromHandlers(options.handlers ?? {});
    this.modernCapabilities = this.capabilities;
    this.cache = options.cache === false ? undefined : new ResultCache();
    this.logLevel = options.logLevel;
  }

  get era(): Era | undefined {
    return this.state?.era;
  }
  /**
   * True between a supervised server's crash and the end of the handshake with its successor
   * (requests made meanwhile wait for it).
   */
  get restarting(): boolean {
    return this.resumeGate !== undefined || this.restoring;
  }
  get protocolVersion(): string | undefined {
    return this.state?.protocolVersion;
  }
  get serverInfo(): Implementation | undefined {
    return this.state?.serverInfo;
  }
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.state?.capabilities;
  }
  get instructions(): string | undefined {
    return this.state?.instructions;
  }
  get supportedVersions(): string[] | undefined {
    return this.state?.supportedVersions;
  }
  /** Resolves when the connection has closed, from either side. */
  get closed(): Promise<void> {
    return this.session ? this.session.closed.then(() => undefined) : Promise.resolve();
  }

  /**
   * Opens the connection and completes the handshake for the server's era. Given a factory,
   * a transport lost during the era probe is replaced by a fresh one for `initialize`.
   */
  async connect(target: Transport | TransportFactory, options: ConnectOptions = {}): Promise<void> {
    if (this.session || this.connecting) throw new Error("McpClient is already connected");
    const { signal } = options;
    if (signal?.aborted) throw connectAborted(signal);
    this.connecting = true;
    const abort = new AbortController();
    this.connectAbort = abort;
    const follow = () => abort.abort(connectAborted(signal!));
    signal?.addEventListener("abort", follow, { once: true });
    try {
      const factory = typeof target === "function" ? target : undefined;
      if (factory) await this.openFresh(factory);
      else this.open(target as Transport);
      try {
        await this.establish(factory, options.serverKey);
      } catch (error) {
        await this.abandon();
        // Given up on purpose: say so, not what the torn-down handshake happened to fail with.
        if (abort.signal.aborted) throw abort.signal.reason;
        throw error;
      }
      if (options.serverKey !== undefined)
        this.options.eraCache?.set(options.serverKey, this.state!.era);
    } finally {
      signal?.removeEventListener("abort", follow);
      this.connectAbort = undefined;
      this.connecting = false;
    }
  }

  /** Closes the connection; connect() may be called again afterwards. */
  async close(): Promise<void> {
    const session = this.session;
    this.connectAbort?.abort(
      new LocalError("closed", "the client was closed while connecting to the server"),
    );
    this.resumeGate?.resolve();
    if (session) await session.close();
    if (this.session === session) this.session = undefined;
  }

  /**
   * Adds middleware around every request this client sends once connected (each wire request:
   * every multi round-trip retry too; not the handshake) and every notification it receives;
   * given a method, around that method's only. The first added runs outermost. A middleware may
   * call next() again after it rejected, to retry. See docs/middleware.md.
   */
  use(middleware: ClientMiddleware): this;
  use(method: string, middleware: ClientMiddleware): this;
  use(first: string | ClientMiddleware, second?: ClientMiddleware): this {
    if (typeof first === "string") this.middleware.use(first, second!);
    else this.middleware.use(first);
    return this;
  }

  /**
   * @internal McpClient.install() without the setup step: the extension's capability joins what this
   * client declares (initialize and every modern request: install before connect()), its
   * methods answer the server's requests, its middleware is added.
   */
  protected installExtension(extension: AnyClientExtension): void {
    checkExtension(extension, this.extensions);
    for (const method of Object.keys(extension.methods ?? {})) {
      if (this.extensionMethods.has(method)) {
        throw new Error(`extension ${extension.id}: another extension already answers ${method}`);
      }
    }
    this.extensions.set(extension.id, extension);
    const { id } = extension;
    this.capabilities = withExtension(
      this.capabilities,
      id,
      extensionCapability(extension, "legacy"),
    );
    this.modernCapabilities = withExtension(
      this.modernCapabilities,
      id,
      extensionCapability(extension, "modern"),
    );
    for (const [method, handler] of Object.entries(extension.methods ?? {})) {
      this.extensionMethods.set(method, handler);
      if (this.session) answerWith(this.session, method, handler);
    }
    if (extension.calls) this.callHooks.push(extension.calls);
    for (const entry of extension.middleware ?? []) {
      if (typeof entry === "function") this.use(entry);
      else this.use(entry.method, entry.middleware);
    }
  }

  /**
   * Any request, era-aware: modern `_meta`, resultType handling, ttlMs caching. Each wire
   * request of the call (rounds, task polls) carries `options.origin` while it is open, for the
   * server requests its answer stream carries (installServerRequestHandlers).
   */
  async request(
    method: string,
    params?: JsonObject,
    options: CallOptions = {},
  ): Promise<JsonObject> {
    await this.ready;
    const session = this.requireSession();
    const state = this.requireState();
    const { _meta: extraMeta, ...requestOptions } = options;
    // The installed extensions' parts in the request (the tasks extension's, say).
    let call: OutgoingCall | undefined;
    let prepared: PreparedCall | undefined;
    if (this.callHooks.length > 0) {
      call = {
        method,
        params,
        options,
        era: state.era,
        serverCapabilities: state.capabilities,
        handlers: this.options.handlers ?? {},
      };
      // Awaited only when a hook has something to change: a tick per request otherwise.
      const preparing = this.prepareCall(call);
      prepared = isThenable(preparing) ? await preparing : preparing;
      if (prepared?.params) params = prepared.params;
    }
    const useCache = this.cache !== undefined && ResultCache.cacheable(method, params);
    let partition: string | undefined;
    if (useCache) {
      const asking = this.authorizationContext();
      if (asking) partition = await asking;
      const hit = this.cache!.get(method, params, partition);
      if (hit) return hit;
    }
    // A detached request goes without the caller's signal: an abort is the extension's to carry
    // out (2025-11-25 tasks cancel with tasks/cancel, never notifications/cancelled).
    const sendOptions = prepared?.detached ? withoutSignal(requestOptions) : requestOptions;
    let result: JsonObject;
    try {
      result = await this.send(session, method, this.wireParams(params, extraMeta), sendOptions);
    } catch (error) {
      // The server may have been replaced by one speaking other versions: switch once.
      const switchTo =
        state.era === "modern" && error instanceof UnsupportedProtocolVersionError
          ? chooseModernVersion(this.preferredVersion, error.supported)
          : undefined;
      if (switchTo === undefined || switchTo === state.protocolVersion) throw error;
      state.protocolVersion = switchTo;
      result = await this.send(session, method, this.wireParams(params, extraMeta), sendOptions);
    }
    let retried = false;
    // Only a result that asks for input has rounds to run: the loop costs a closure, an object
    // and an async step per call otherwise.
    if (
      state.era === "modern" &&
      result.resultType === "input_required" &&
      INPUT_METHODS.has(method)
    ) {
      ({ result, retried } = await resolveInputRequired(result, {
        method,
        params,
        handlers: this.options.handlers ?? {},
        maxRounds: this.options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS,
        signal: requestOptions.signal,
        abort: requestOptions.abort,
        origin: options.origin,
        // Each retry is a new request with its own id, carrying the same caller _meta.
        send: (retryParams) =>
          this.send(session, method, this.wireParams(retryParams, extraMeta), requestOptions),
      }));
    }
    const finishing = call && this.finishCall(result, call, prepared);
    if (finishing !== undefined) {
      const finished = await finishing;
      if (finished.asIs) return finished.result;
      result = finished.result;
      retried = true; // a result carried to its end (a task's) is never served from a cache
    }
    const complete = completeResult(state.era, method, result);
    // A retry's result depends on answers given once; it is never served again from a cache.
    // Nor is a result whose credentials are in doubt: the token changed while it was fetched.
    if (useCache && !retried) {
      const asking = this.authorizationContext();
      if (!asking || (await asking) === partition) {
        this.cache!.set(method, params, complete, partition);
      }
    }
    return complete;
  }

  /**
   * The call hooks' prepare steps, in install order; the last change to params wins. Stays
   * synchronous until a hook answers with a promise.
   */
  private prepareCall(
    call: OutgoingCall,
  ): PreparedCall | Promise<PreparedCall | undefined> | undefined {
    let prepared: PreparedCall | undefined;
    const hooks = this.callHooks;
    for (let at = 0; at < hooks.length; at++) {
      const change = hooks[at]!.prepare?.(call);
      if (isThenable(change)) return this.prepareFrom(call, at, change, prepared);
      if (change) prepared = { ...prepared, ...change };
    }
    return prepared;
  }

  /** prepareCall once hook `at` answered with a promise: the rest, awaited. */
  private async prepareFrom(
    call: OutgoingCall,
    at: number,
    pending: Promise<PreparedCall | undefined>,
    before: PreparedCall | undefined,
  ): Promise<PreparedCall | undefined> {
    let prepared = before;
    const first = await pending;
    if (first) prepared = { ...prepared, ...first };
    for (const hook of this.callHooks.slice(at + 1)) {
      const change = await hook.prepare?.(call);
      if (change) prepared = { ...prepared, ...change };
    }
    return prepared;
  }

  /** The first call hook that finishes the result; undefined when none does. */
  private finishCall(
    result: JsonObject,
    call: OutgoingCall,
    prepared: PreparedCall | undefined,
  ): FinishedCall | Promise<FinishedCall> | undefined {
    for (const hook of this.callHooks) {
      const pending = hook.finish?.(result, call, prepared);
      if (pending !== undefined) return pending;
    }
    return undefined;
  }

  /**
   * The server's versions, capabilities and identity. Modern: `server/discover` (served from
   * the cache while its ttlMs lasts). Legacy: built from the initialize result.
   */
  async discover(options?: CallOptions): Promise<ClientDiscoverResult> {
    await this.ready;
    const state = this.requireState();
    if (state.era === "legacy") {
      const result: ClientDiscoverResult = {
        supportedVersions: [...state.supportedVersions],
        capabilities: state.capabilities,
      };
      if (state.instructions !== undefined) result.instructions = state.instructions;
      if (state.serverInfo)
        result._meta = { "io.modelcontextprotocol/serverInfo": state.serverInfo };
      return result;
    }
    const result = await this.request("server/discover", undefined, options);
    const fresh = stateFromDiscover(state.protocolVersion, result);
    state.capabilities = fresh.capabilities;
    state.instructions = fresh.instructions;
    state.serverInfo = fresh.serverInfo ?? state.serverInfo;
    state.supportedVersions = fresh.supportedVersions;
    return result as ClientDiscoverResult;
  }

  /**
   * Opens a subscription: a `subscriptions/listen` stream on modern servers; on legacy ones
   * `resources/subscribe` for the uris plus the server's list_changed notifications, behind the
   * same API. `acknowledged` resolves with the part of the filter the server honours. After a
   * supervised restart the client subscribes again on its own.
   */
  listen(filter: SubscriptionFilter): Subscription {
    this.requireState();
    if (this.resumeGate) throw new Error("McpClient is restarting its server; await a call first");
    return this.listens.open(filter);
  }

  /** Drops every cached result. */
  clearCache(): void {
    this.cache?.clear();
  }

  /** While connect() runs: aborted when it is given up. */
  private get connectSignal(): AbortSignal | undefined {
    return this.connectAbort?.signal;
  }

  /**
   * Opens a transport from the factory, unless connecting was given up meanwhile: then nothing
   * new is started (a transport the factory was still making is closed at once).
   */
  private async openFresh(factory: TransportFactory): Promise<void> {
    const signal = this.connectSignal;
    if (signal?.aborted) throw signal.reason;
    const transport = await factory();
    if (signal?.aborted) {
      await transport.close();
      throw signal.reason;
    }
    this.open(transport);
  }

  /** Connecting failed: close whatever is open and forget it. */
  private async abandon(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    this.state = undefined;
    await session?.close();
  }

  private get preferredVersion(): string {
    return this.options.protocolVersion ?? LATEST_MODERN_VERSION;
  }

  /** Which credentials the transport's next request carries (a digest), for the cache. */
  private authorizationContext(): Promise<string | undefined> | undefined {
    return this.transport?.authorizationContext?.();
  }

  private open(transport: Transport): Session {
    this.transport = transport;
    const session = new Session(
      transport,
      {
        requestTimeoutMs: this.options.requestTimeoutMs,
        onProtocolError: this.options.onProtocolError,
        onInterrupted: () => this.holdRequests(),
        onResumed: () => this.rehandshake(),
      },
      {
        handleNotification: (method, params) =>
          this.throughMiddleware(method, params, (given) => this.notified(method, given)),
        receivingEngineNotification: (method, params, _context, consume) =>
          this.throughMiddleware(method, params, consume),
        sendingNotification: (method, params, send) => this.sendNotification(method, params, send),
      },
    );
    installServerRequestHandlers(session, this.options.handlers ?? {}, (id) =>
      id === undefined ? undefined : session.originOf(id),
    );
    for (const [method, handler] of this.extensionMethods) answerWith(session, method, handler);
    // A transport that closes for good releases anyone waiting for a restart.
    void session.closed.then((info) => {
      this.resumeGate?.resolve();
      this.listens.disconnected(info.error);
    });
    session.start();
    this.session = session;
    return session;
  }

  private async establish(
    factory: TransportFactory | undefined,
    serverKey?: string,
  ): Promise<void> {
    const forced = this.options.era ?? "auto";
    if (forced !== "auto") {
      await this.handshake(forced);
      return;
    }
    const cached = serverKey === undefined ? undefined : this.options.eraCache?.get(serverKey);
    if (cached) {
      try {
        await this.handshake(cached);
        return;
      } catch (error) {
        // The cached assumption failed: forget it and probe afresh (spec: re-probe).
        this.options.eraCache?.delete(serverKey!);
        if (!(error instanceof JsonRpcError)) {
          if (!factory) throw error;
          await this.session?.close();
          await this.openFresh(factory);
        }
      }
    }
    await this.detect(factory);
  }

  private async detect(factory: TransportFactory | undefined): Promise<void> {
    const session = this.requireSession();
    const outcome = await probeEra(
      (version, options) =>
        this.sendDiscover(session, version, {
          ...options,
          probe: true,
          signal: this.connectSignal,
        }),
      this.preferredVersion,
      this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
    );
    if (outcome.era === "modern") {
      this.adoptDiscover(outcome.version, outcome.result);
      return;
    }
    if (outcome.era === "closed") {
      if (!factory) {
        throw new LocalError(
          "closed",
          "the server closed the connection during the server/discover era probe " +
            "(pass a transport factory to connect() to retry initialize on a fresh one)",
          { cause: outcome.error },
        );
      }
      await session.close();
      await this.openFresh(factory);
    }
    await this.handshake("legacy");
  }

  /** The handshake of a known era, on the current session. */
  private async handshake(era: Era): Promise<void> {
    const session = this.requireSession();
    if (era === "modern") {
      const { version, result } = await discoverModern(
        (v, options) => this.sendDiscover(session, v, { ...options, signal: this.connectSignal }),
        this.preferredVersion,
      );
      this.adoptDiscover(version, result);
      return;
    }
    const protocolVersion = this.options.legacyProtocolVersion ?? LATEST_LEGACY_VERSION;
    this.state = await legacyInitialize(
      (params, options) =>
        this.send(session, "initialize", params, options, { era: "legacy", protocolVersion }),
      {
        protocolVersion,
        capabilities: this.capabilities,
        clientInfo: this.options.clientInfo,
        timeoutMs: this.options.requestTimeoutMs,
        signal: this.connectSignal,
      },
    );
    // Sent once the state is known, so its middleware sees the agreed version.
    await session.notify("notifications/initialized");
    if (this.logLevel !== undefined && this.state.capabilities.logging) {
      await this.send(
        session,
        "logging/setLevel",
        { level: this.logLevel },
        {
          signal: this.connectSignal,
        },
      );
    }
  }

  private sendDiscover(
    session: Session,
    version: string,
    options: RequestOptions,
  ): Promise<JsonObject> {
    const meta = modernMeta({
      protocolVersion: version,
      clientInfo: this.options.clientInfo,
      capabilities: this.modernCapabilities,
      logLevel: this.logLevel,
    });
    // While probing, the era is still being found out: the middleware sees none yet.
    const era = options.probe === true ? undefined : "modern";
    return this.send(session, "server/discover", { _meta: meta }, options, {
      era,
      protocolVersion: version,
    });
  }

  private adoptDiscover(version: string, result: JsonObject): void {
    this.state = stateFromDiscover(version, result);
    this.cache?.set("server/discover", undefined, result);
  }

  private wireParams(params: JsonObject | undefined, extraMeta: JsonObject | undefined) {
    const state = this.state!;
    if (state.era === "legacy") return withMeta(params, undefined, extraMeta);
    let base = this.modernBase;
    if (
      base === undefined ||
      base.protocolVersion !== state.protocolVersion ||
      base.capabilities !== this.modernCapabilities ||
      base.logLevel !== this.logLevel
    ) {
      const fields = {
        protocolVersion: state.protocolVersion,
        clientInfo: this.options.clientInfo,
        capabilities: this.modernCapabilities,
        logLevel: this.logLevel,
      };
      base = { ...fields, meta: Object.freeze(modernMeta(fields)) };
      this.modernBase = base;
    }
    // Middleware may change a request's `_meta` in place, and an unserialised transport hands
    // it to the server as is: those get a copy of their own.
    const share = this.middleware.empty && SERIALISING.has(this.transport?.kind);
    return withMeta(params, base.meta, extraMeta, share);
  }

  /**
   * One request on the wire, through the middleware that applies to it (straight to the
   * session when none does).
   */
  private send(
    session: Session,
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions,
    handshake?: { era: Era | undefined; protocolVersion: string },
  ): Promise<JsonObject> {
    const chain = this.middleware.chainFor(method);
    if (!chain) return session.request(method, params, options);
    return sendThroughChain(
      chain,
      method,
      params,
      options,
      handshake ? { ...handshake, carrier: this.transport } : this.chainFacts(),
      (m, p, o) => session.request(m, p, o),
    );
  }

  /** The connection as the middleware sees it. */
  private chainFacts(): ChainFacts {
    return {
      era: this.state?.era,
      protocolVersion: this.state?.protocolVersion,
      carrier: this.transport,
    };
  }

  /** A notification the client sends, through the middleware that applies to it. */
  private sendNotification(
    method: string,
    params: JsonObject | undefined,
    send: (params: JsonObject | undefined) => Promise<void>,
  ): Promise<void> {
    const chain = this.middleware.chainFor(method);
    if (!chain) return send(params);
    return sendNotificationThroughChain(chain, method, params, this.chainFacts(), send);
  }

  /** A notification from the server, through the middleware that applies to it (if any). */
  private throughMiddleware(
    method: string,
    params: JsonObject,
    deliver: (params: JsonObject) => void,
  ): void {
    const chain = this.middleware.chainFor(method);
    if (!chain) deliver(params);
    else {
      notifyThroughChain(
        chain,
        method,
        params,
        this.chainFacts(),
        deliver,
        this.options.onProtocolError,
      );
    }
  }

  /** A server notification the middleware let through (or there was none). */
  private notified(method: string, params: JsonObject): void {
    if (this.state) this.listens.route(method, params);
    const cache = this.cache;
    if (cache) {
      if (method === "notifications/tools/list_changed") cache.invalidateMethods("tools/list");
      else if (method === "notifications/prompts/list_changed")
        cache.invalidateMethods("prompts/list");
      else if (method === "notifications/resources/list_changed") {
        cache.invalidateMethods("resources/list", "resources/templates/list");
      } else if (method === "notifications/resources/updated" && typeof params.uri === "string") {
        cache.invalidateResource(params.uri);
      }
    }
    this.options.onNotification?.(method, params);
  }

  private holdRequests(): void {
    if (this.resumeGate) return;
    const gate = new Promise<void>((resolve, reject) => {
      this.resumeGate = { resolve, reject };
    });
    gate.catch(() => {}); // observed by whoever awaits `ready`
    this.ready = gate;
  }

  /** A supervised transport has a fresh server: handshake again before anything else goes out. */
  private rehandshake(): void {
    this.holdRequests();
    const gate = this.resumeGate!;
    this.resumeGate = undefined;
    this.cache?.clear(); // a new process owes nothing to the old one's results
    const era = this.state?.era;
    if (!era || this.connecting) {
      gate.resolve();
      return;
    }
    this.restoring = true;
    this.restore(era).then(
      () => {
        this.restoring = false;
        gate.resolve();
      },
      (error: unknown) => {
        this.restoring = false;
        gate.reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  }

  /** Handshake with a fresh server, then renew subscriptions on it (it holds none of ours). */
  private async restore(era: Era): Promise<void> {
    await this.handshake(era);
    if (era !== "legacy") {
      this.listens.resubscribe();
      return;
    }
    const session = this.requireSession();
    const uris = new Set([...this.subscriptions, ...this.listens.legacyUrisInUse()]);
    for (const uri of uris) await session.request("resources/subscribe", { uri });
  }

  private requireSession(): Session {
    if (!this.session) throw new Error("McpClient is not connected; call connect() first");
    return this.session;
  }
  protected requireState(): ServerState {
    this.requireSession();
    if (!this.state) throw new Error("McpClient is still connecting");
    return this.state;
  }
  protected requireLegacy(method: string, why: string): void {
    if (this.requireState().era !== "legacy") {
      throw new Error(`${method} is not available on a modern connection: ${why}`);
    }
  }
}

/** An extension of any host, as far as the connection half needs to know it. */
type AnyClientExtension = Extension<never, ServerRequestContext, ClientMiddlewareContext> & {
  readonly calls?: ClientCallHook;
};

/** `declared` with `extensions[id]` set (a copy; the caller's object is never changed). */
function withExtension(
  declared: ClientCapabilities,
  id: string,
  capability: JsonObject | undefined,
): ClientCapabilities {
  if (capability === undefined) return declared;
  return { ...declared, extensions: { ...declared.extensions, [id]: capability } };
}

/** A server-to-client method of an extension, on `session`. */
function answerWith(
  session: Session,
  method: string,
  handler: ExtensionMethod<ServerRequestContext>,
): void {
  session.setRequestHandler(method, (params, context) =>
    handler(params, { signal: context.signal }),
  );
}

/** What connect() rejects with when the caller's signal gave it up. */
function connectAborted(signal: AbortSignal): LocalError {
  const reason: unknown = signal.reason;
  if (reason instanceof LocalError) return reason;
  const detail = reason instanceof Error ? reason.message : reason ? String(reason) : "aborted";
  return new LocalError("aborted", `connecting cancelled: ${detail}`, { cause: reason });
}

/** The options without the caller's cancellation, signal or abort (the timeout stays). */
function withoutSignal(options: RequestOptions): RequestOptions {
  if (options.signal === undefined && options.abort === undefined) return options;
  const { signal: _signal, abort: _abort, ...rest } = options;
  return rest;
}
