/**
 * The HTTP face of `mcpwire gateway`: an McpServer whose tools, resources, prompts and
 * completions are those of one stdio child, reached through an McpClient. Because the HTTP side
 * is an ordinary McpServer it is dual-era whatever the child speaks: a modern HTTP client's
 * per-request `_meta` and a legacy client's `initialize` session both end up as plain calls on
 * the client, which speaks the child's own era.
 *
 * Sharing model: one child serves every HTTP client. MCP requests are independent (each carries
 * its own id, progress token and cancellation), so they are multiplexed on the one stdio
 * connection; nothing per-client is kept in the child. The child is supervised: after a crash
 * it is restarted, requests in flight at that moment fail, and later ones go to the new child.
 * Subscriptions are shared too (gateway-subscriptions.ts): one child subscription per resource
 * uri, however many HTTP clients want it. Logs: see gateway-logs.ts.
 *
 * Transparent to what it does not own: a request's `_meta` reaches the child but for the
 * protocol's own keys (gateway-meta.ts), the client's declared extensions are declared to a
 * modern child on each request, the child's extensions and experimental capabilities are
 * offered in both eras, and the tasks extension is relayed (gateway-tasks.ts).
 */
import type { McpClient } from "../../client/index.js";
import type { CallOptions, ClientHandlers, ServerRequestContext } from "../../client/types.js";
import {
  ErrorCode,
  InvalidParamsError,
  isPlainObject,
  JsonRpcError,
  LocalError,
} from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import { IdTable } from "../../protocol/id-table.js";
import type { ClientCapabilities, ServerCapabilities, Tool } from "../../protocol/mcp-types.js";
import { META } from "../../protocol/meta.js";
import type { Era } from "../../protocol/versions.js";
import type { ClientRequestMethod, HandlerContext } from "../../server/context.js";
import { McpServer } from "../../server/index.js";
import { InputRequiredSignal } from "../../server/mrtr/round.js";
import type { McpServerOptions } from "../../server/server-core.js";
import type { SubscriptionEventSource } from "../../server/subscriptions.js";
import { LEGACY_TASK_METHODS, legacyTasksCapability } from "../../server/tasks/legacy-wire.js";
import { callWithTask } from "../../server/tasks/task-call.js";
import { declaresTasks, TASK_METHODS, TASKS_EXTENSION } from "../../server/tasks/wire.js";
import type { ToolRules } from "../connect/config-file.js";
import { writeErr } from "../core/terminal.js";
import {
  bridgedSupport,
  childTaskForm,
  isGatewayTask,
  isTaskHandle,
  withTaskSupport,
} from "./gateway-era-tasks.js";
import { GatewayLogs } from "./gateway-logs.js";
import { relayedMeta } from "./gateway-meta.js";
import { ChildCall, ParkedCalls } from "./gateway-rounds.js";
import { ChildEventSource } from "./gateway-subscriptions.js";
import { RelayedTasks } from "./gateway-tasks.js";
import { ToolRuleSet } from "./gateway-tool-rules.js";

const DEFAULT_CHILD_TIMEOUT_MS = 60_000;

/** The child's capabilities the gateway offers as they are. */
const CHILD_CAPABILITY_NAMES = [
  "tools",
  "prompts",
  "resources",
  "completions",
  "extensions",
  "experimental",
] as const;

/** Methods passed through to the child unchanged (apart from `_meta`). */
const PROXIED = new Set([
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
]);

/** Result fields that belong to the child's connection, not to the one the gateway serves. */
const CONNECTION_FIELDS = new Set(["resultType", "ttlMs", "cacheScope"]);

/**
 * What the gateway's client declares to its child (it answers all three, by asking the HTTP
 * client whose call it is); to a modern child each request adds the HTTP client's extensions.
 */
export const CHILD_CLIENT_CAPABILITIES: ClientCapabilities = Object.freeze({
  roots: {},
  sampling: {},
  elicitation: {},
});
export interface GatewayServerOptions extends McpServerOptions {
  /** Resource URIs one listen stream (or legacy session) may watch; see gateway-subscriptions.ts. */
  maxUrisPerStream?: number;
  /** How long a call waits, parked, for its client's next input round (ms); see gateway-rounds.ts. */
  parkedCallMs?: number;
  /** Calls parked at once; the oldest is given up beyond this. */
  maxParkedCalls?: number;
  /**
   * How long the child may take to answer a call (ms), not counting time its questions wait
   * for the client; restarted by its progress. Default 60 s.
   */
  childTimeoutMs?: number;
  /** Tasks whose owner the gateway remembers at once (see gateway-tasks.ts). */
  maxRelayedTasks?: number;
  /** The config entry's rules for its tools (allow, deny, rename, descriptions). */
  toolRules?: ToolRules;
  /**
   * Where the child's list changes, resource updates and task status go out to listeners:
   * this process by default; every gateway instance of a cluster with --redis.
   */
  eventBus?: SubscriptionEventSource;
}

export class GatewayServer extends McpServer {
  private readonly child: () => McpClient;
  private readonly tools = new Map<string, Tool>();
  /**
   * HTTP-side requests waiting on the child right now. This table and `calls` are IdTables
   * keyed by a serial, not Sets: their entries come and go with every call (see id-table.ts).
   */
  private readonly inFlight = new IdTable<HandlerContext>();
  /** Calls open on the child, parked ones (between a client's input rounds) included. */
  private readonly calls = new IdTable<ChildCall>();
  private nextSerial = 0;
  private readonly parked: ParkedCalls;
  private readonly childTimeoutMs: number;
  private readonly childEvents: ChildEventSource;
  private readonly logs: GatewayLogs;
  private readonly relayedTasks: RelayedTasks;
  private readonly toolRules: ToolRuleSet | undefined;

  constructor(child: () => McpClient, options: GatewayServerOptions) {
    const report = (error: Error) => {
      if (options.onError) options.onError(error);
      else writeErr(`mcpwire gateway: ${error.message}`);
    };
    const {
      maxUrisPerStream,
      parkedCallMs,
      maxParkedCalls,
      childTimeoutMs,
      maxRelayedTasks,
      toolRules,
      eventBus,
      ...serverOptions
    } = options;
    const relayedTasks = new RelayedTasks(maxRelayedTasks);
    const childEvents = new ChildEventSource(
      child,
      report,
      maxUrisPerStream,
      (taskId) => relayedTasks.ownerOf(taskId),
      eventBus,
    );
    // The server's own cap on listen uris follows the gateway's (the server's default is 1,000).
    const subscriptions =
      maxUrisPerStream === undefined
        ? serverOptions.subscriptions
        : { maxUrisPerStream, ...serverOptions.subscriptions };
    super({ ...serverOptions, subscriptionEvents: childEvents, subscriptions });
    this.child = child;
    this.childEvents = childEvents;
    this.relayedTasks = relayedTasks;
    this.parked = new ParkedCalls(parkedCallMs, maxParkedCalls);
    this.childTimeoutMs = childTimeoutMs ?? DEFAULT_CHILD_TIMEOUT_MS;
    this.toolRules = toolRules === undefined ? undefined : new ToolRuleSet(toolRules);
    this.logs = new GatewayLogs({
      child: () => ({
        era: child().era,
        logging: child().serverCapabilities?.logging !== undefined,
      }),
      setChildLevel: (level) => child().setLogLevel(level),
      legacySessions: () => this.legacySessions(),
      report,
    });
  }

  /** Starts relaying the child's list changes to listen streams and legacy sessions. */
  start(): void {
    this.childEvents.relayListChanges();
  }

  /** The uris the child is subscribed to on behalf of HTTP clients. */
  get watchedUris(): number {
    return this.childEvents.watchedUris;
  }

  /** Every notification from the child goes through here (list changes come by listen()). */
  childNotification(method: string, params: JsonObject): void {
    if (method === "notifications/message") this.logs.route(params, this.inFlight.values());
  }

  legacyLogLevelsChanged(): Promise<void> {
    return this.logs.levelsChanged();
  }

  /**
   * Handlers for the child's client: what the child asks is asked of the HTTP client whose call
   * is waiting on it. The HTTP side then speaks its own era: an InputRequiredResult for a
   * modern client, a server-to-client request for a legacy one.
   */
  childHandlers(): ClientHandlers {
    const ask = (
      method: ClientRequestMethod,
      params: JsonObject,
      asked: ServerRequestContext,
    ): Promise<JsonObject> => {
      // A modern child's questions come back as the input requests of a call, which names it
      // (CallOptions.origin). A legacy child's arrive as stdio requests that name no call:
      // they can only be routed when a single call is open, or, when none is, to a legacy
      // session that can answer.
      const own = asked.origin instanceof ChildCall ? asked.origin : undefined;
      // A modern child's question keeps its own key, so the client sees what the child asked.
      if (own) return own.ask(method, params, false, asked.inputKey);
      if (this.calls.size === 1) return this.calls.values()[0]!.ask(method, params, true);
      if (this.calls.size === 0) return this.askLegacySession(method, params, asked);
      throw new JsonRpcError(
        ErrorCode.InternalError,
        `the gateway cannot tell which of ${this.calls.size} waiting calls this ${method} belongs to`,
      );
    };
    return {
      elicitation: (params, asked) => ask("elicitation/create", params, asked),
      sampling: (params, asked) => ask("sampling/createMessage", params, asked),
      roots: async (asked) => {
        const answer = await ask("roots/list", {}, asked);
        return Array.isArray(answer.roots) ? (answer.roots as never) : [];
      },
    };
  }

  /**
   * A question no call waits on (a legacy child asking on its own, e.g. roots/list after
   * initialize): the first legacy session that declared the capability and has a stream for it
   * (HTTP: its GET stream) answers; otherwise the child gets an error saying why.
   */
  private async askLegacySession(
    method: ClientRequestMethod,
    params: JsonObject,
    asked: ServerRequestContext,
  ): Promise<JsonObject> {
    for (const session of this.legacySessions()) {
      if (!declares(session.clientCapabilities, method, params)) continue;
      try {
        return await session.request(method, params, { signal: asked.signal });
      } catch (error) {
        // No stream to carry it: the next session may have one.
        if (error instanceof LocalError && error.kind === "transport") continue;
        throw error;
      }
    }
    // Servers ask for roots right after initialize, before any client came: the gateway has
    // none of its own, and saying so is no failure (elicitation and sampling need a person).
    if (method === "roots/list") return { roots: [] };
    throw new JsonRpcError(
      ErrorCode.InternalError,
      `no HTTP client of the gateway can answer ${method}: no call is waiting, and no legacy session that declared the capability has a stream open for it`,
    );
  }

  /**
   * What the child declared in its last handshake, as an object whose identity changes with
   * every handshake (a restarted child makes a new one): lists kept for it are stale then.
   */
  childHandshake(): object | undefined {
    return this.child().serverCapabilities;
  }

  override capabilities(era: Era): ServerCapabilities {
    const child = (this.child().serverCapabilities ?? {}) as JsonObject;
    const capabilities: ServerCapabilities = {};
    // As the child declares them, listChanged and subscribe included: both are relayed. Its
    // extensions (tasks, MCP Apps, vendors') and experimental ones too, in both eras: their
    // methods and `_meta` keys pass through.
    for (const name of CHILD_CAPABILITY_NAMES) {
      if (isPlainObject(child[name])) capabilities[name] = child[name] as JsonObject;
    }
    // Legacy sessions may always set a level (the gateway filters); modern ones as the child.
    if (era === "legacy" || isPlainObject(child.logging)) capabilities.logging = {};
    // Tasks in the form the client speaks, whichever the child speaks (gateway-era-tasks.ts).
    const form = childTaskForm(this.child());
    if (form !== undefined && era === "legacy") {
      capabilities.tasks = legacyTasksCapability(true);
    }
    if (form === "legacy" && era === "modern") {
      capabilities.extensions = { ...capabilities.extensions, [TASKS_EXTENSION]: {} };
    }
    return capabilities;
  }

  override async handle(
    method: string,
    params: JsonObject,
    context: HandlerContext,
  ): Promise<JsonObject> {
    if (method === "server/discover") return super.handle(method, params, context);
    if (TASK_METHODS.has(method) || LEGACY_TASK_METHODS.has(method)) {
      if (await isGatewayTask(method, params, context, this.tasks?.store)) {
        this.tasksExtension.ensureManager();
        return super.handle(method, params, context);
      }
      // tasks/result and tasks/list are 2025-11-25's alone: the extension has neither.
      if (!TASK_METHODS.has(method)) {
        throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
      }
      return this.relayTask(method, params, context);
    }
    // Methods of extensions the child offers (skills/list, resources/directory/read, …) pass
    // through as the rest do: the child answers, or says it has no such method.
    if (!PROXIED.has(method) && !offersExtensions(this.child())) {
      throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
    // `_meta` and a multi round-trip retry's answers belong to the HTTP-side round: a retry
    // that answers a parked call's questions resumes that call (gateway-rounds.ts), anything
    // else is a new call on the child.
    const { _meta, inputResponses: _answers, requestState: _state, ...forwarded } = params;
    if (method === "tools/call" && this.toolRules)
      forwarded.name = this.serverToolName(params.name);
    // What a multi round-trip retry must repeat; only such a retry or a parked call needs it.
    let bound: string | undefined;
    const binding = () => {
      bound ??= JSON.stringify([context.principal ?? null, method, forwarded]);
      return bound;
    };
    if (method === "tools/call") {
      const child = this.child();
      const tool =
        childTaskForm(child) === "legacy" ? await this.childTool(forwarded.name) : undefined;
      const support = bridgedSupport(child, tool, context);
      if (support !== undefined) {
        const { task, ...call } = forwarded;
        const run = (taskContext: HandlerContext) =>
          this.callOnChild(method, call, binding, taskContext, _meta, true);
        const result = await callWithTask(
          this.tasksExtension.ensureManager(),
          { support },
          call,
          context,
          run,
          task,
          typeof params.name === "string" ? params.name : undefined,
        );
        return isTaskHandle(result) ? result : withoutConnectionFields(result);
      }
    }
    return this.callOnChild(method, forwarded, binding, context, _meta, false, params);
  }

  /**
   * One call on the child for the HTTP request `context` (or, with `bridged`, for the task the
   * gateway runs in its place: no clock but the task's, and the tasks extension declared to a
   * modern child so that its own task comes back, which the gateway's client then drives).
   */
  private async callOnChild(
    method: string,
    forwarded: JsonObject,
    binding: () => string,
    context: HandlerContext,
    _meta: unknown,
    bridged: boolean,
    /** The request's own params, whose answers may resume a parked call (not for a task). */
    original?: JsonObject,
  ): Promise<JsonObject> {
    const begun = this.logs.begin(context);
    const endLogs = typeof begun === "function" ? begun : await begun;
    const call =
      (original && this.parked.resume(original, binding)) ??
      this.callChild(method, forwarded, binding, context, _meta, bridged);
    const serial = this.nextSerial++;
    this.inFlight.set(serial, context);
    let result: JsonObject;
    try {
      result = await call.round(context);
    } catch (error) {
      if (error instanceof InputRequiredSignal) this.parked.park(call);
      throw error;
    } finally {
      this.inFlight.delete(serial);
      endLogs();
    }
    if (method === "tools/list" && Array.isArray(result.tools)) {
      for (const tool of result.tools as Tool[]) this.tools.set(tool.name, tool);
      if (this.toolRules) {
        result = {
          ...result,
          tools: this.toolRules.offered(result.tools as Tool[]) as unknown as JsonObject[],
        };
      }
      if (context.era === "legacy" && childTaskForm(this.child()) === "extension") {
        result = { ...result, tools: withTaskSupport(result.tools as unknown[]) };
      }
    }
    if (result.resultType === "task") {
      // A CreateTaskResult: its resultType and ttlMs are the task's, not caching hints.
      this.relayedTasks.created(result, context.principal);
      return withoutServerInfo({ ...result });
    }
    // An extension's own results (skills/list, …) keep the child's caching hints to a modern
    // caller: the gateway adds hints only to the methods it knows.
    if (!PROXIED.has(method) && context.era === "modern") return withoutServerInfo({ ...result });
    return withoutConnectionFields(result);
  }

  /** The child's tool of this name as last listed (listed now if it was not). */
  private async childTool(name: unknown): Promise<Tool | undefined> {
    if (typeof name !== "string") return undefined;
    if (!this.tools.has(name)) {
      for (const tool of await this.child().listAllTools()) this.tools.set(tool.name, tool);
    }
    return this.tools.get(name);
  }

  /** tasks/get, tasks/update, tasks/cancel: to the child, for the task's own client only. */
  private async relayTask(
    method: string,
    params: JsonObject,
    context: HandlerContext,
  ): Promise<JsonObject> {
    this.relayedTasks.check(method, params, context.clientCapabilities, context.principal);
    const { _meta, ...forwarded } = params;
    const client = this.child();
    const meta = this.childMeta(client, context, _meta);
    const result = await client.request(method, forwarded, {
      signal: context.signal,
      ...(meta ? { _meta: meta } : {}),
    });
    // A task's resultType and ttlMs are its own: only the child's identity goes.
    return withoutServerInfo({ ...result });
  }

  /**
   * The `_meta` a request to the child carries beside the client's protocol keys: what the
   * HTTP client sent that the gateway does not own, and for a modern child this call's log
   * level and the HTTP client's extensions (so the child offers a task, or an app, only to a
   * client that can take it).
   */
  private childMeta(
    client: McpClient,
    context: HandlerContext,
    meta: unknown,
    bridged = false,
  ): JsonObject | undefined {
    const relayed = relayedMeta(meta);
    if (client.era !== "modern") return relayed;
    // The gateway's own task drives the child's: the child is told the gateway takes tasks.
    const extensions = bridged
      ? { ...context.clientCapabilities.extensions, [TASKS_EXTENSION]: {} }
      : context.clientCapabilities.extensions;
    // The child hears what this caller can answer, so it refuses (-32021) or does without, as
    // it would for the caller itself, rather than ask what nobody will answer.
    const asks = questionsAnswered(context.clientCapabilities);
    const own: JsonObject = relayed ?? {};
    own[META.clientCapabilities] = extensions === undefined ? asks : { ...asks, extensions };
    // A modern child logs for a request only when asked in its `_meta`, at this call's level.
    if (context.logLevel !== undefined) own[META.logLevel] = context.logLevel;
    return own;
  }

  /** Starts a call on the child, for this and any later rounds of the HTTP request. */
  private callChild(
    method: string,
    params: JsonObject,
    binding: () => string,
    context: HandlerContext,
    meta: unknown,
    bridged = false,
  ): ChildCall {
    const client = this.child();
    const call = new ChildCall(binding, bridged ? Number.POSITIVE_INFINITY : this.childTimeoutMs);
    const options: CallOptions = {
      abort: call.abort,
      noTimeout: true, // the call keeps its own clock (see ChildCall)
      onProgress: (progress) => call.progress(progress),
      origin: call,
    };
    const childMeta = this.childMeta(client, context, meta, bridged);
    if (childMeta) options._meta = childMeta;
    // A client of the tasks extension gets the child's task to drive itself; for any other
    // the gateway's client waits for the task's end (a modern child makes none for it), and so
    // it does for a task the gateway runs itself (gateway-era-tasks.ts).
    if (method === "tools/call" && declaresTasks(context.clientCapabilities) && !bridged) {
      options.returnTaskHandle = true;
    }
    const serial = this.nextSerial++;
    this.calls.set(serial, call);
    call.begin(
      () => client.request(method, params, options),
      () => {
        this.calls.delete(serial);
        this.parked.remove(call);
      },
    );
    return call;
  }

  /** The child's tool definitions as last listed, for the HTTP binding's Mcp-Param-* checks. */
  override toolDefinition(name: string): Tool | undefined {
    if (!this.toolRules) return this.tools.get(name);
    const server = this.toolRules.serverName(name);
    const tool = server === undefined ? undefined : this.tools.get(server);
    return tool && { ...tool, name };
  }

  /** The child's name for a tool called by its offered name; unknown if the rules hide it. */
  private serverToolName(name: unknown): unknown {
    if (typeof name !== "string") return name;
    const server = this.toolRules!.serverName(name);
    if (server === undefined) throw new InvalidParamsError(`Unknown tool: ${name}`, { name });
    return server;
  }
}

function offersExtensions(child: McpClient): boolean {
  const extensions = child.serverCapabilities?.extensions;
  return isPlainObject(extensions) && Object.keys(extensions).length > 0;
}

/** The questions (roots, sampling, elicitation) a caller declared it answers, as it declared them. */
function questionsAnswered(declared: ClientCapabilities): JsonObject {
  const asks: JsonObject = {};
  if (declared.roots !== undefined) asks.roots = {};
  if (isPlainObject(declared.sampling)) asks.sampling = declared.sampling;
  if (isPlainObject(declared.elicitation)) asks.elicitation = declared.elicitation;
  return asks;
}

/** Whether a client that declared `declared` may be sent this request (as context.ts checks). */
function declares(
  declared: ClientCapabilities,
  method: ClientRequestMethod,
  params: JsonObject,
): boolean {
  if (method === "sampling/createMessage") return declared.sampling !== undefined;
  if (method === "roots/list") return declared.roots !== undefined;
  const elicitation = declared.elicitation;
  if (!isPlainObject(elicitation)) return false;
  if (params.mode === "url") return elicitation.url !== undefined;
  return Object.keys(elicitation).length === 0 || elicitation.form !== undefined;
}

/**
 * A copy of the result without its connection fields and the child's serverInfo. Built key by
 * key rather than copied and deleted from: a `delete` turns the copy into a slow dictionary
 * object, which every later read and the reply's JSON.stringify then pay for.
 */
function withoutConnectionFields(result: JsonObject): JsonObject {
  const copy: JsonObject = {};
  for (const key in result) {
    if (!CONNECTION_FIELDS.has(key)) copy[key] = result[key]!;
  }
  return withoutServerInfo(copy);
}

/** Drops the child's serverInfo from a result copy's `_meta` (the gateway names itself). */
function withoutServerInfo(copy: JsonObject): JsonObject {
  const meta = copy._meta;
  if (!isPlainObject(meta) || !(META.serverInfo in meta)) return copy;
  const kept: JsonObject = {};
  let any = false;
  for (const key in meta) {
    if (key === META.serverInfo) continue;
    kept[key] = meta[key]!;
    any = true;
  }
  if (any) {
    copy._meta = kept;
    return copy;
  }
  // Without `_meta` at all, as if the child had sent none (a copy again: no `delete`).
  const bare: JsonObject = {};
  for (const key in copy) {
    if (key !== "_meta") bare[key] = copy[key]!;
  }
  return bare;
}
