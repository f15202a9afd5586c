import type { JsonObject } from "../jsonrpc/types.js";
import type {
  CacheHint,
  CompleteResult,
  Prompt,
  Resource,
  ResourceTemplate,
} from "../protocol/mcp-types.js";
import type { Era } from "../protocol/versions.js";
import type { SchemaValidator } from "../schema/validator.js";
import { complete } from "./completion.js";
import type { HandlerContext } from "./context.js";
import { type PromptHandler, type PromptOptions, PromptRegistry } from "./prompt-registry.js";
import {
  type ReadHandler,
  type ResourceOptions,
  ResourceRegistry,
  readResource,
  resourceScopes,
  type TemplateOptions,
  type TemplateReadHandler,
  TemplateRegistry,
} from "./resource-registry.js";
import type { SchemaSource } from "./schema-source.js";
import {
  type ToolDefinition,
  type ToolHandler,
  type ToolOptions,
  ToolRegistry,
} from "./tool-registry.js";

export type FeatureKind = "tools" | "resources" | "prompts";

/**
 * The server's registries (tools, resources, templates, prompts; completion reads the last
 * three) and the era-independent handling of the methods that use them. Results come back bare;
 * the dispatcher adds era-specific fields.
 */
export class Features {
  readonly tools: ToolRegistry;
  readonly resources: ResourceRegistry;
  readonly templates: TemplateRegistry;
  readonly prompts: PromptRegistry;

  constructor(onChange: (kind: FeatureKind) => void, engine?: SchemaValidator) {
    this.tools = new ToolRegistry(() => onChange("tools"), engine);
    this.resources = new ResourceRegistry(() => onChange("resources"));
    this.templates = new TemplateRegistry(() => onChange("resources"));
    this.prompts = new PromptRegistry(() => onChange("prompts"));
  }

  addTool<I extends SchemaSource, O extends SchemaSource>(
    definition: ToolDefinition<I, O>,
    handler: ToolHandler<I, O>,
    options?: ToolOptions,
  ): () => void {
    return this.tools.add(definition, handler, options);
  }

  addResource(resource: Resource, read: ReadHandler, options?: ResourceOptions): () => void {
    return this.resources.add(resource, read, options);
  }

  addTemplate(
    template: ResourceTemplate,
    read: TemplateReadHandler,
    options?: TemplateOptions,
  ): () => void {
    return this.templates.add(template, read, options);
  }

  addPrompt(prompt: Prompt, handler: PromptHandler, options?: PromptOptions): () => void {
    return this.prompts.add(prompt, handler, options);
  }

  listTools(params: JsonObject, pageSize: number | undefined, era: Era): JsonObject {
    return this.tools.list(params, pageSize, era);
  }

  listResources(params: JsonObject, pageSize?: number): JsonObject {
    return this.resources.list(params, pageSize);
  }

  listTemplates(params: JsonObject, pageSize?: number): JsonObject {
    return this.templates.list(params, pageSize);
  }

  listPrompts(params: JsonObject, pageSize?: number): JsonObject {
    return this.prompts.list(params, pageSize);
  }

  callTool(params: JsonObject, context: HandlerContext): JsonObject | Promise<JsonObject> {
    return this.tools.call(params, context);
  }

  /**
   * The OAuth scopes registered for the target of a request (the called tool, the prompt, the
   * resource read or subscribed to, directly or through its template), if any.
   */
  targetScopes(method: string, params: JsonObject | undefined): readonly string[] | undefined {
    if (method === "tools/call") {
      return typeof params?.name === "string" ? this.tools.get(params.name)?.scopes : undefined;
    }
    if (method === "prompts/get") {
      return typeof params?.name === "string"
        ? this.prompts.get(params.name)?.options.scopes
        : undefined;
    }
    if (method !== "resources/read" && method !== "resources/subscribe") return undefined;
    const uri = params?.uri;
    if (typeof uri !== "string") return undefined;
    return resourceScopes(uri, this.resources, this.templates);
  }

  /** Returns the result and the caching hint that applies to it, if the resource set one. */
  readResource(
    params: JsonObject,
    context: HandlerContext,
  ): Promise<{ result: JsonObject; cache?: CacheHint }> {
    return readResource(params, context, this.resources, this.templates);
  }

  getPrompt(params: JsonObject, context: HandlerContext): Promise<JsonObject> {
    return this.prompts.getPrompt(params, context);
  }

  complete(params: JsonObject): Promise<CompleteResult> {
    return complete(params, this.prompts, this.resources, this.templates);
  }
}
