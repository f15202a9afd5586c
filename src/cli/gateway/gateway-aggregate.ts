/**
 * The gateway's aggregated endpoint (`/mcp` with several servers): one McpServer whose tools
 * and prompts are every server's, named `<server>_<name>`, whose resources carry the server in
 * their URIs (gateway-names.ts), and which routes each call, read, completion, subscription and
 * task back to the server it came from. Each server stays behind its own GatewayServer (the
 * per-server endpoint's), so everything that one does (multi round-trip rounds, questions to
 * the caller, tasks across eras, logs) holds here too: this class only renames and routes.
 */
import {
  ErrorCode,
  InvalidParamsError,
  isPlainObject,
  JsonRpcError,
} from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import type { ServerCapabilities, Tool } from "../../protocol/mcp-types.js";
import type { Era } from "../../protocol/versions.js";
import type { HandlerContext } from "../../server/context.js";
import { McpServer } from "../../server/index.js";
import type { McpServerOptions } from "../../server/server-core.js";
import {
  InMemoryEventSource,
  type SubscriptionEvent,
  type SubscriptionEventListener,
  type SubscriptionEventSource,
} from "../../server/subscriptions.js";
import { LEGACY_TASK_METHODS } from "../../server/tasks/legacy-wire.js";
import { TASK_METHODS } from "../../server/tasks/wire.js";
import { followsToolNameRules, namespacedName, namespacedUri, splitUri } from "./gateway-names.js";
import type { GatewayServer } from "./gateway-server.js";

export interface AggregatedServer {
  name: string;
  server: GatewayServer;
}

export interface AggregateOptions extends McpServerOptions {
  /** Between a server's name and its tool's or prompt's (default "_"). */
  separator?: string;
  /** Told once per name that collides or breaks the tool-name rules. */
  report: (line: string) => void;
}

type Kind = "tools" | "prompts";
interface Route {
  upstream: AggregatedServer;
  name: string;
}

/** One server's list of tools or prompts as last read, and the handshake it was read after. */
interface KeptList {
  items: JsonObject[];
  handshake: object | undefined;
}

const LIST_METHOD = { tools: "tools/list", prompts: "prompts/list" } as const;
/** Pages read from one server for one list (a server paging forever must not hold us). */
const MAX_PAGES = 100;
/** Task ids remembered for routing (the newest). */
const MAX_TASK_ROUTES = 10_000;

export class AggregateServer extends McpServer {
  private readonly upstreams: Map<string, AggregatedServer>;
  private readonly separator: string;
  private readonly report: (line: string) => void;
  private readonly routes = { tools: new Map<string, Route>(), prompts: new Map<string, Route>() };
  private readonly definitions = new Map<string, Tool>();
  private readonly taskRoutes = new Map<string, AggregatedServer>();
  private readonly told = new Set<string>();
  /**
   * Each server's lists by `<server>\0<kind>\0<era>`, for a server that says it tells of list
   * changes: read again only after its list_changed, or once it was restarted.
   */
  private readonly kept = new Map<string, KeptList>();
  /** List changes seen per `<server>\0<kind>`: a list read across one is not kept. */
  private readonly changes = new Map<string, number>();

  constructor(upstreams: readonly AggregatedServer[], options: AggregateOptions) {
    const byName = new Map(upstreams.map((upstream) => [upstream.name, upstream]));
    const { separator, report, ...serverOptions } = options;
    const events = new AggregateEvents(byName, (upstream, kind) => this.forget(upstream, kind));
    super({ ...serverOptions, subscriptionEvents: events });
    events.taskRoute = (taskId) => this.taskRoutes.get(taskId);
    this.upstreams = byName;
    this.separator = separator ?? "_";
    this.report = report;
  }

  override capabilities(era: Era): ServerCapabilities {
    const merged: JsonObject = {};
    for (const { server } of this.upstreams.values()) {
      const own = server.capabilities(era) as JsonObject;
      for (const [name, value] of Object.entries(own)) {
        if (!isPlainObject(value)) continue;
        merged[name] = { ...(merged[name] as JsonObject | undefined), ...value };
      }
    }
    return merged as ServerCapabilities;
  }

  override async handle(
    method: string,
    params: JsonObject,
    context: HandlerContext,
  ): Promise<JsonObject> {
    switch (method) {
      case "tools/list":
        return { tools: await this.listed("tools", context) };
      case "prompts/list":
        return { prompts: await this.listed("prompts", context) };
      case "tools/call":
      case "prompts/get": {
        const kind: Kind = method === "tools/call" ? "tools" : "prompts";
        const route = await this.route(kind, params.name, context);
        const result = await route.upstream.server.handle(
          method,
          { ...params, name: route.name },
          context,
        );
        if (method === "tools/call") this.noteTask(result, route.upstream);
        return withUris(result, route.upstream.name);
      }
      case "resources/list":
      case "resources/templates/list":
        return this.listedResources(method, context);
      case "resources/read": {
        const { upstream, uri } = this.resourceRoute(params.uri, context.era);
        const result = await upstream.server.handle(method, { ...params, uri }, context);
        return withUris(result, upstream.name);
      }
      case "completion/complete":
        return this.complete(params, context);
    }
    if (TASK_METHODS.has(method) || LEGACY_TASK_METHODS.has(method)) {
      return method === "tasks/list"
        ? this.listTasks(params, context)
        : this.relayTask(method, params, context);
    }
    return super.handle(method, params, context);
  }

  /** A tool's definition by its aggregated name, for the HTTP binding's Mcp-Param-* checks. */
  override toolDefinition(name: string): Tool | undefined {
    return this.definitions.get(name);
  }

  /** Every server's list of `kind`, renamed; a server that fails is left out and reported. */
  private async listed(kind: Kind, context: HandlerContext): Promise<JsonObject[]> {
    const lists = await Promise.all(
      [...this.upstreams.values()].map(async (upstream) => {
        try {
          return { upstream, items: await this.itemsOf(upstream, kind, context) };
        } catch (error) {
          this.tell(
            `list ${upstream.name}`,
            `${upstream.name}: ${kind} not listed: ${(error as Error).message}`,
          );
          return { upstream, items: [] };
        }
      }),
    );
    const routes = new Map<string, Route>();
    const merged: JsonObject[] = [];
    for (const { upstream, items } of lists) {
      for (const item of items) {
        if (typeof item.name !== "string") continue;
        const name = namespacedName(upstream.name, item.name, this.separator);
        const taken = routes.get(name);
        if (taken) {
          this.tell(
            `clash ${name}`,
            `${kind} name ${name} is both ${taken.upstream.name}'s and ${upstream.name}'s: only the first is offered`,
          );
          continue;
        }
        if (kind === "tools" && !followsToolNameRules(name)) {
          this.tell(
            `rules ${name}`,
            `tool name ${JSON.stringify(name)} breaks the tool-name rules (1-128 of A-Z a-z 0-9 _ - .); clients may refuse it`,
          );
        }
        routes.set(name, { upstream, name: item.name });
        const renamed = withToolMetaUris({ ...item, name }, upstream.name);
        if (kind === "tools") this.definitions.set(name, renamed as unknown as Tool);
        merged.push(renamed);
      }
    }
    this.routes[kind] = routes;
    return merged;
  }

  /** One server's list of `kind`: kept from before while it is known to be current. */
  private async itemsOf(
    upstream: AggregatedServer,
    kind: Kind,
    context: HandlerContext,
  ): Promise<JsonObject[]> {
    const key = `${upstream.name}\0${kind}\0${context.era}`;
    const handshake = upstream.server.childHandshake();
    const kept = this.kept.get(key);
    if (kept && kept.handshake === handshake) return kept.items;
    const changes = this.changes.get(`${upstream.name}\0${kind}`);
    const items = await this.pages(upstream, LIST_METHOD[kind], kind, context);
    const declared = upstream.server.capabilities(context.era)[kind] as JsonObject | undefined;
    const current =
      upstream.server.childHandshake() === handshake &&
      this.changes.get(`${upstream.name}\0${kind}`) === changes;
    if (declared?.listChanged === true && current) this.kept.set(key, { items, handshake });
    return items;
  }

  private async pages(
    upstream: AggregatedServer,
    method: string,
    field: string,
    context: HandlerContext,
  ): Promise<JsonObject[]> {
    const items: JsonObject[] = [];
    let cursor: unknown;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await upstream.server.handle(
        method,
        cursor === undefined ? {} : { cursor },
        context,
      );
      const list = result[field];
      if (Array.isArray(list)) items.push(...list.filter(isPlainObject));
      cursor = result.nextCursor;
      if (typeof cursor !== "string") break;
    }
    return items;
  }

  private async route(kind: Kind, name: unknown, context: HandlerContext): Promise<Route> {
    if (typeof name !== "string")
      throw new InvalidParamsError(`${LIST_METHOD[kind]}: a string "name" is needed`);
    // Not known yet (no list so far, or a list change since): list again, once.
    let known = this.routes[kind].get(name);
    if (!known) {
      await this.listed(kind, context);
      known = this.routes[kind].get(name);
    }
    if (known) return known;
    throw new InvalidParamsError(
      `${kind === "tools" ? "Unknown tool" : "Unknown prompt"}: ${name}`,
      { name },
    );
  }

  private resourceRoute(uri: unknown, era: Era): { upstream: AggregatedServer; uri: string } {
    const split = typeof uri === "string" ? splitUri(uri) : undefined;
    const upstream = split && this.upstreams.get(split.server);
    if (!split || !upstream) {
      const code = era === "modern" ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound;
      throw new JsonRpcError(code, `Resource not found: ${String(uri)}`, { uri: String(uri) });
    }
    return { upstream, uri: split.uri };
  }

  private async listedResources(method: string, context: HandlerContext): Promise<JsonObject> {
    const field = method === "resources/list" ? "resources" : "resourceTemplates";
    const uriField = method === "resources/list" ? "uri" : "uriTemplate";
    const merged: JsonObject[] = [];
    for (const upstream of this.upstreams.values()) {
      if (!upstream.server.capabilities(context.era).resources) continue;
      try {
        for (const item of await this.pages(upstream, method, field, context)) {
          const uri = item[uriField];
          if (typeof uri === "string")
            merged.push({ ...item, [uriField]: namespacedUri(upstream.name, uri) });
        }
      } catch (error) {
        this.tell(
          `${method} ${upstream.name}`,
          `${upstream.name}: ${method} failed: ${(error as Error).message}`,
        );
      }
    }
    return { [field]: merged };
  }

  private async complete(params: JsonObject, context: HandlerContext): Promise<JsonObject> {
    const ref = isPlainObject(params.ref) ? params.ref : {};
    if (ref.type === "ref/prompt") {
      const route = await this.route("prompts", ref.name, context);
      return route.upstream.server.handle(
        "completion/complete",
        { ...params, ref: { ...ref, name: route.name } },
        context,
      );
    }
    const { upstream, uri } = this.resourceRoute(ref.uri, context.era);
    return upstream.server.handle(
      "completion/complete",
      { ...params, ref: { ...ref, uri } },
      context,
    );
  }

  /** A call that became a task: its later tasks/* go to the same server. */
  private noteTask(result: JsonObject, upstream: AggregatedServer): void {
    const task = isPlainObject(result.task) ? result.task : result;
    if (typeof task.taskId !== "string") return;
    this.taskRoutes.set(task.taskId, upstream);
    if (this.taskRoutes.size > MAX_TASK_ROUTES) {
      this.taskRoutes.delete(this.taskRoutes.keys().next().value as string);
    }
  }

  private relayTask(
    method: string,
    params: JsonObject,
    context: HandlerContext,
  ): Promise<JsonObject> {
    const upstream =
      typeof params.taskId === "string" ? this.taskRoutes.get(params.taskId) : undefined;
    if (!upstream) throw new InvalidParamsError("Task not found (unknown, expired, or not yours)");
    return upstream.server.handle(method, params, context);
  }

  /** 2025-11-25 tasks/list: every server's tasks of this caller, in one page. */
  private async listTasks(params: JsonObject, context: HandlerContext): Promise<JsonObject> {
    const tasks: unknown[] = [];
    for (const upstream of this.upstreams.values()) {
      const result = await upstream.server
        .handle("tasks/list", params, context)
        .catch(() => undefined);
      if (Array.isArray(result?.tasks)) tasks.push(...result.tasks);
    }
    return { tasks };
  }

  /** A server's list changed: its names are learnt again at the next list or call. */
  private forget(upstream: AggregatedServer, kind: string): void {
    if (kind !== "tools" && kind !== "prompts") return;
    const changed = `${upstream.name}\0${kind}`;
    this.changes.set(changed, (this.changes.get(changed) ?? 0) + 1);
    for (const era of ["modern", "legacy"]) this.kept.delete(`${changed}\0${era}`);
    for (const [name, route] of this.routes[kind]) {
      if (route.upstream === upstream) {
        this.routes[kind].delete(name);
        this.definitions.delete(name);
      }
    }
  }

  private tell(key: string, line: string): void {
    if (this.told.has(key)) return;
    this.told.add(key);
    this.report(line);
  }
}

/** Resource URIs in a result's content and embedded resources, made aggregated. */
function withUris(result: JsonObject, server: string): JsonObject {
  const copy: JsonObject = { ...result };
  for (const field of ["content", "contents"]) {
    const list = copy[field];
    if (Array.isArray(list)) copy[field] = list.map((item) => itemWithUri(item, server));
  }
  if (Array.isArray(copy.messages)) {
    copy.messages = copy.messages.map((message) =>
      isPlainObject(message) && isPlainObject(message.content)
        ? { ...message, content: itemWithUri(message.content, server) }
        : message,
    );
  }
  return copy;
}

function itemWithUri(item: unknown, server: string): unknown {
  if (!isPlainObject(item)) return item;
  if (typeof item.uri === "string") return { ...item, uri: namespacedUri(server, item.uri) };
  if (isPlainObject(item.resource) && typeof item.resource.uri === "string") {
    return {
      ...item,
      resource: { ...item.resource, uri: namespacedUri(server, item.resource.uri) },
    };
  }
  return item;
}

/** MCP Apps: a tool names its UI resource in `_meta.ui.resourceUri`; it must read back here. */
function withToolMetaUris(tool: JsonObject, server: string): JsonObject {
  const meta = tool._meta;
  if (!isPlainObject(meta)) return tool;
  const copy: JsonObject = { ...meta };
  if (isPlainObject(copy.ui) && typeof copy.ui.resourceUri === "string") {
    copy.ui = { ...copy.ui, resourceUri: namespacedUri(server, copy.ui.resourceUri) };
  }
  if (typeof copy["ui/resourceUri"] === "string") {
    copy["ui/resourceUri"] = namespacedUri(server, copy["ui/resourceUri"]);
  }
  return { ...tool, _meta: copy };
}

/**
 * Every server's events on the aggregated endpoint: list changes as they are (and the names
 * learnt again), resource updates with aggregated URIs, task statuses; a subscription to an
 * aggregated URI is one on its server.
 */
class AggregateEvents implements SubscriptionEventSource {
  private readonly local = new InMemoryEventSource();
  taskRoute: (taskId: string) => AggregatedServer | undefined = () => undefined;

  constructor(
    private readonly upstreams: ReadonlyMap<string, AggregatedServer>,
    listChanged: (upstream: AggregatedServer, kind: string) => void,
  ) {
    for (const upstream of upstreams.values()) {
      upstream.server.subscriptionEvents.subscribe((event) => {
        const { id: _id, ...plain } = event;
        if (plain.type === "listChanged") {
          listChanged(upstream, plain.kind);
          this.local.publish(plain);
        } else if (plain.type === "resourceUpdated") {
          this.local.publish({
            type: "resourceUpdated",
            uri: namespacedUri(upstream.name, plain.uri),
          });
        } else {
          this.local.publish(plain as SubscriptionEvent);
        }
      });
    }
  }

  get maxWatchesPerSubscriber(): number | undefined {
    const first = this.upstreams.values().next();
    return first.done ? undefined : first.value.server.subscriptionEvents.maxWatchesPerSubscriber;
  }

  publish(event: SubscriptionEvent): void {
    this.local.publish(event);
  }

  subscribe(listener: SubscriptionEventListener): () => void {
    return this.local.subscribe(listener);
  }

  watch(uri: string, signal?: AbortSignal): Promise<() => void> {
    const split = splitUri(uri);
    const events = split && this.upstreams.get(split.server)?.server.subscriptionEvents;
    if (!split || !events?.watch) {
      return Promise.reject(new InvalidParamsError(`Resource not found: ${uri}`, { uri }));
    }
    return events.watch(split.uri, signal);
  }

  watchTask(taskId: string, owner: string, signal?: AbortSignal): Promise<() => void> {
    const events = this.taskRoute(taskId)?.server.subscriptionEvents;
    if (!events?.watchTask) {
      return Promise.reject(
        new InvalidParamsError("Task not found (unknown, expired, or not yours)"),
      );
    }
    return events.watchTask(taskId, owner, signal);
  }
}
