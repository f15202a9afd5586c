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
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { McpClient } from "../client/mcp-client.js";
import type { ClientHandlers } from "../client/types.js";
import { ErrorCode, isPlainObject, JsonRpcError } from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import type { ServerCapabilities, Tool } from "../protocol/mcp-types.js";
import { META } from "../protocol/meta.js";
import type { Era } from "../protocol/versions.js";
import type { HandlerContext } from "../server/context.js";
import { McpServer } from "../server/mcp-server.js";
import type { McpServerOptions } from "../server/server-core.js";

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
const CONNECTION_FIELDS = ["resultType", "ttlMs", "cacheScope"];

export class GatewayServer extends McpServer {
  private readonly child: () => McpClient;
  /** The HTTP-side request a child call is made for, so the child's questions reach its client. */
  private readonly current = new AsyncLocalStorage<HandlerContext>();
  private readonly tools = new Map<string, Tool>();
  /** HTTP-side calls waiting on the child. */
  private readonly inFlight = new Set<HandlerContext>();

  constructor(child: () => McpClient, options: McpServerOptions) {
    super(options);
    this.child = child;
  }

  /**
   * Handlers for the child's client: a modern child's input requests (multi round-trip) are
   * asked of the HTTP client whose call is waiting on them. The HTTP side then speaks its own
   * era: an InputRequiredResult for a modern client, a server-to-client request for a legacy one.
   */
  childHandlers(): ClientHandlers {
    const ask = (): HandlerContext => {
      // A modern child's questions come back inside the call's own async context. A legacy
      // child's arrive as stdio requests that name no call: they can only be routed when a
      // single call is waiting.
      const context =
        this.current.getStore() ?? (this.inFlight.size === 1 ? [...this.inFlight][0] : undefined);
      if (!context) {
        throw new JsonRpcError(
          ErrorCode.InternalError,
          `the gateway cannot tell which of ${this.inFlight.size} waiting calls this question belongs to`,
        );
      }
      return context;
    };
    return {
      elicitation: (params) => ask().elicit(params),
      sampling: (params) => ask().sample(params),
      roots: async () => {
        const answer = await ask().listRoots();
        return Array.isArray(answer.roots) ? (answer.roots as never) : [];
      },
    };
  }

  override capabilities(era: Era): ServerCapabilities {
    const child = (this.child().serverCapabilities ?? {}) as JsonObject;
    const capabilities: ServerCapabilities = {};
    for (const name of ["tools", "prompts", "completions"] as const) {
      if (child[name] !== undefined) capabilities[name] = child[name] as JsonObject;
    }
    if (isPlainObject(child.resources)) {
      // Resource subscriptions are not forwarded to the child (yet): list changes are.
      const { subscribe: _subscribe, ...rest } = child.resources;
      capabilities.resources = rest;
    }
    if (era === "legacy") capabilities.logging = {};
    return capabilities;
  }

  override async handle(
    method: string,
    params: JsonObject,
    context: HandlerContext,
  ): Promise<JsonObject> {
    if (method === "server/discover") return super.handle(method, params, context);
    if (!PROXIED.has(method)) {
      throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
    // `_meta` and a multi round-trip retry's answers belong to the HTTP-side round; the child
    // gets a fresh call and asks its own questions again (answered from those answers).
    const { _meta, inputResponses: _answers, requestState: _state, ...forwarded } = params;
    this.inFlight.add(context);
    let result: JsonObject;
    try {
      result = await this.current.run(context, () =>
        this.child().request(method, forwarded, {
          signal: context.signal,
          onProgress: (progress) =>
            void context.progress(progress.progress, progress.total, progress.message),
        }),
      );
    } finally {
      this.inFlight.delete(context);
    }
    if (method === "tools/list" && Array.isArray(result.tools)) {
      for (const tool of result.tools as Tool[]) this.tools.set(tool.name, tool);
    }
    return withoutConnectionFields(result);
  }

  /** The child's tool definitions as last listed, for the HTTP binding's Mcp-Param-* checks. */
  override toolDefinition(name: string): Tool | undefined {
    return this.tools.get(name);
  }
}

function withoutConnectionFields(result: JsonObject): JsonObject {
  const copy: JsonObject = { ...result };
  for (const field of CONNECTION_FIELDS) delete copy[field];
  if (isPlainObject(copy._meta)) {
    const { [META.serverInfo]: _serverInfo, ...meta } = copy._meta;
    if (Object.keys(meta).length > 0) copy._meta = meta;
    else delete copy._meta;
  }
  return copy;
}
