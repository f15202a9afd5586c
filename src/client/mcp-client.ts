import type { JsonObject } from "../jsonrpc/types.js";
import type { Extension } from "../protocol/extension.js";
import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from "../protocol/mcp-types.js";
import type { RequestOptions } from "../protocol/outgoing.js";
import type { ClientCallHook } from "./call-hooks.js";
import { ClientConnection } from "./connection.js";
import type { ClientMiddlewareContext } from "./middleware-chain.js";
import { OutputSchemaChecks } from "./output-checks.js";
import { collectPages } from "./pagination.js";
import type {
  CallOptions,
  CompletionReference,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  McpClientOptions,
  ServerRequestContext,
} from "./types.js";

/** An extension as a client installs it (see Extension and install()). */
export interface ClientExtension
  extends Extension<McpClientBase, ServerRequestContext, ClientMiddlewareContext> {
  /** Its part in each request the client sends (the tasks extension's, for one). */
  readonly calls?: ClientCallHook;
}

/**
 * The MCP client without any extension installed, for both protocol eras. connect() finds the
 * server's era (or takes the one forced or cached), and every call afterwards speaks that era:
 * per-request `_meta` for modern servers, the `initialize` session for legacy ones. McpClient
 * is this with the tasks extension installed.
 */
export class McpClientBase extends ClientConnection {
  /** Output schemas from tools/list, when the client was given a validator. */
  private readonly outputChecks: OutputSchemaChecks | undefined;

  constructor(options: McpClientOptions) {
    super(options);
    this.outputChecks = options.validator ? new OutputSchemaChecks(options.validator) : undefined;
  }

  /**
   * Installs an extension: its capability (declared in both eras; install before connect()),
   * its methods (answers to the server's requests), its middleware, then its setup step.
   */
  install(extension: ClientExtension): this {
    this.installExtension(extension);
    extension.setup?.(this);
    return this;
  }

  async listTools(
    params: { cursor?: string } = {},
    options?: CallOptions,
  ): Promise<ListToolsResult> {
    const result = (await this.request(
      "tools/list",
      cursorParams(params),
      options,
    )) as ListToolsResult;
    this.outputChecks?.remember(result.tools);
    return result;
  }
  listAllTools(options?: CallOptions): Promise<Tool[]> {
    return collectPages(
      "tools/list",
      (cursor) => this.listTools({ cursor }, options),
      (page) => page.tools,
    );
  }
  async callTool(name: string, args?: JsonObject, options?: CallOptions): Promise<CallToolResult> {
    const params: JsonObject = args === undefined ? { name } : { name, arguments: args };
    const result = (await this.request("tools/call", params, options)) as CallToolResult;
    this.outputChecks?.check(name, result);
    return result;
  }

  listResources(
    params: { cursor?: string } = {},
    options?: CallOptions,
  ): Promise<ListResourcesResult> {
    return this.request(
      "resources/list",
      cursorParams(params),
      options,
    ) as Promise<ListResourcesResult>;
  }
  listAllResources(options?: CallOptions): Promise<Resource[]> {
    return collectPages(
      "resources/list",
      (cursor) => this.listResources({ cursor }, options),
      (page) => page.resources,
    );
  }
  listResourceTemplates(
    params: { cursor?: string } = {},
    options?: CallOptions,
  ): Promise<ListResourceTemplatesResult> {
    return this.request(
      "resources/templates/list",
      cursorParams(params),
      options,
    ) as Promise<ListResourceTemplatesResult>;
  }
  listAllResourceTemplates(options?: CallOptions): Promise<ResourceTemplate[]> {
    return collectPages(
      "resources/templates/list",
      (cursor) => this.listResourceTemplates({ cursor }, options),
      (page) => page.resourceTemplates,
    );
  }
  /** Rejects with a JsonRpcError that `isResourceNotFound()` recognises when there is none. */
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult> {
    return this.request("resources/read", { uri }, options) as Promise<ReadResourceResult>;
  }

  listPrompts(params: { cursor?: string } = {}, options?: CallOptions): Promise<ListPromptsResult> {
    return this.request(
      "prompts/list",
      cursorParams(params),
      options,
    ) as Promise<ListPromptsResult>;
  }
  listAllPrompts(options?: CallOptions): Promise<Prompt[]> {
    return collectPages(
      "prompts/list",
      (cursor) => this.listPrompts({ cursor }, options),
      (page) => page.prompts,
    );
  }
  getPrompt(
    name: string,
    args?: Record<string, string>,
    options?: CallOptions,
  ): Promise<GetPromptResult> {
    const params: JsonObject = args === undefined ? { name } : { name, arguments: args };
    return this.request("prompts/get", params, options) as Promise<GetPromptResult>;
  }

  complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
    options?: CallOptions,
  ): Promise<CompleteResult> {
    const params: JsonObject =
      context === undefined ? { ref, argument } : { ref, argument, context };
    return this.request("completion/complete", params, options) as Promise<CompleteResult>;
  }

  /** Legacy only: 2026-07-28 removed ping. */
  async ping(options?: RequestOptions): Promise<void> {
    this.requireLegacy("ping", "it was removed in 2026-07-28");
    await this.request("ping", undefined, options);
  }

  /** Legacy: logging/setLevel. Modern: sent as `_meta` logLevel on every later request. */
  async setLogLevel(level: LoggingLevel, options?: RequestOptions): Promise<void> {
    await this.ready;
    const era = this.requireState().era;
    if (era === "legacy") await this.request("logging/setLevel", { level }, options);
    this.logLevel = level;
  }

  /** Legacy only; modern servers use subscriptions/listen (see listen(), which serves both). */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    this.requireLegacy("resources/subscribe", "modern servers use subscriptions/listen");
    await this.request("resources/subscribe", { uri }, options);
    this.subscriptions.add(uri);
  }
  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    this.requireLegacy("resources/unsubscribe", "modern servers use subscriptions/listen");
    // A listen() subscription may still want the uri; then the server keeps sending updates.
    if (!this.listens.legacyUrisInUse().includes(uri)) {
      await this.request("resources/unsubscribe", { uri }, options);
    }
    this.subscriptions.delete(uri);
  }
}

function cursorParams(params: { cursor?: string }): JsonObject | undefined {
  return params.cursor === undefined ? undefined : { cursor: params.cursor };
}
