import {
  ErrorCode,
  InternalError,
  InvalidParamsError,
  isPlainObject,
  JsonRpcError,
} from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import { scanHeaderAnnotations, X_MCP_HEADER } from "../protocol/header-annotations.js";
import type {
  CacheHint,
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
  Tool,
} from "../protocol/mcp-types.js";
import type { Era } from "../protocol/versions.js";
import {
  CompiledSchemas,
  type CompiledValidator,
  type JsonSchema,
} from "../schema/compiled-schemas.js";
import { defaultValidator } from "../schema/default-validator.js";
import { SchemaError, type SchemaValidator } from "../schema/validator.js";
import { checkCacheHint } from "./cache-hints.js";
import type { HandlerContext } from "./context.js";
import { paginate, Registry } from "./registry.js";
import {
  checkRequiredCapabilities,
  type RequiredClientCapabilities,
  requirementError,
} from "./required-capabilities.js";
import {
  type SchemaInput,
  type SchemaOutput,
  type SchemaSource,
  type StandardParser,
  standardParser,
  toJsonSchema,
} from "./schema-source.js";
import { checkScopes, scopesOrNone } from "./scopes.js";
import type { TaskManager } from "./tasks/manager.js";
import { checkTaskTimes } from "./tasks/manager.js";
import { callWithTask, type ToolTaskOptions } from "./tasks/task-call.js";
import { tasksRequirement } from "./tasks/wire.js";
import { UriTemplate } from "./uri-template.js";

/**
 * A tool's handler. With schema-library schemas, `args` is the inputSchema's output type
 * (defaults and transforms applied) and structuredContent the outputSchema's input type.
 */
export type ToolHandler<
  I extends SchemaSource = SchemaSource,
  O extends SchemaSource = SchemaSource,
> = (args: SchemaOutput<I>, context: HandlerContext) => ToolReturn<O> | Promise<ToolReturn<O>>;

/** A CallToolResult (structuredContent typed by the outputSchema), or text for a text result. */
export type ToolReturn<O extends SchemaSource = SchemaSource> =
  | string
  | (CallToolResult & { structuredContent?: SchemaInput<O> });

export interface ToolDefinition<
  I extends SchemaSource = SchemaSource,
  O extends SchemaSource = SchemaSource,
> extends Omit<Tool, "inputSchema" | "outputSchema"> {
  /**
   * JSON Schema (2020-12 unless `$schema` says otherwise), validated with ajv; or a
   * schema-library object implementing Standard Schema + Standard JSON Schema (zod 4 and
   * others), published as JSON Schema and validated by the library itself. Defaults to any object.
   */
  inputSchema?: I;
  outputSchema?: O;
}

export type ReadHandler = (
  uri: string,
  context: HandlerContext,
) => ReadResourceResult | ResourceContents[] | Promise<ReadResourceResult | ResourceContents[]>;

export type TemplateReadHandler = (
  uri: string,
  variables: Record<string, string | string[]>,
  context: HandlerContext,
) => ReadResourceResult | ResourceContents[] | Promise<ReadResourceResult | ResourceContents[]>;

/** Suggests values for one argument (of a prompt) or variable (of a resource template). */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string> },
) => string[] | Promise<string[]>;

export interface ResourceOptions {
  /** Caching hint for reads of this resource; overrides the server default. */
  cache?: CacheHint;
  /**
   * OAuth scopes a caller's access token must carry to read (or subscribe to) it; enforced
   * like ToolOptions.scopes.
   */
  scopes?: readonly string[];
}

export interface TemplateOptions extends ResourceOptions {
  complete?: Record<string, Completer>;
}

export type PromptHandler = (
  args: Record<string, string>,
  context: HandlerContext,
) => GetPromptResult | Promise<GetPromptResult>;

export interface PromptOptions {
  complete?: Record<string, Completer>;
  /** OAuth scopes a caller's access token must carry to get it; enforced like ToolOptions.scopes. */
  scopes?: readonly string[];
}

export interface ToolOptions {
  /**
   * Client capabilities the tool cannot work without, e.g. `{ elicitation: {} }` or
   * `{ sampling: { tools: {} } }`. A client that lacks any gets -32021 (data.requiredCapabilities
   * naming what it lacks) before the handler runs, and on Streamable HTTP before any byte of a
   * stream: the 400 the spec asks for, not an error inside a 200 stream.
   */
  requiredClientCapabilities?: RequiredClientCapabilities;
  /**
   * OAuth scopes a caller's access token must carry to call the tool, e.g. `["files:write"]`.
   * Enforced on an HTTP endpoint protected with `auth` (mcpwire/auth's protectResource): a
   * token without them gets HTTP 403 insufficient_scope naming them, before the handler runs.
   */
  scopes?: readonly string[];
  /**
   * Whether calls may run as tasks (the io.modelcontextprotocol/tasks extension): `never` by
   * default. With `required`, a client that did not declare the extension gets -32021.
   */
  task?: ToolTaskOptions;
}

interface RegisteredTool {
  tool: Tool;
  handler: ToolHandler;
  /** options.requiredClientCapabilities, when any (with the extension for `required` tasks). */
  requires: JsonObject | undefined;
  /** options.requiredClientCapabilities alone (what a legacy task call must have declared). */
  ownRequires: JsonObject | undefined;
  /** options.scopes, when any. */
  scopes: readonly string[] | undefined;
  /** options.task, when the tool can run as a task. */
  task: ToolTaskOptions | undefined;
  /** The schema library's own validators, for schema-library schemas (else ajv checks). */
  parseInput: StandardParser | undefined;
  parseOutput: StandardParser | undefined;
}

interface RegisteredResource {
  resource: Resource;
  read: ReadHandler;
  options: ResourceOptions;
}
interface RegisteredTemplate {
  template: ResourceTemplate;
  matcher: UriTemplate;
  read: TemplateReadHandler;
  options: TemplateOptions;
}
interface RegisteredPrompt {
  prompt: Prompt;
  handler: PromptHandler;
  options: PromptOptions;
}

export type FeatureKind = "tools" | "resources" | "prompts";

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const MAX_COMPLETIONS = 100;

/**
 * The server's tools, resources, templates and prompts, and the era-independent handling of the
 * methods that use them. Results come back bare; the dispatcher adds era-specific fields.
 */
export class Features {
  readonly tools: Registry<RegisteredTool>;
  readonly resources: Registry<RegisteredResource>;
  readonly templates: Registry<RegisteredTemplate>;
  readonly prompts: Registry<RegisteredPrompt>;
  private readonly validator: CompiledSchemas;

  constructor(onChange: (kind: FeatureKind) => void, engine?: SchemaValidator) {
    this.validator = new CompiledSchemas(() => engine ?? defaultValidator());
    this.tools = new Registry(() => onChange("tools"));
    this.resources = new Registry(() => onChange("resources"));
    this.templates = new Registry(() => onChange("resources"));
    this.prompts = new Registry(() => onChange("prompts"));
  }

  addTool<I extends SchemaSource, O extends SchemaSource>(
    definition: ToolDefinition<I, O>,
    handler: ToolHandler<I, O>,
    options: ToolOptions = {},
  ): () => void {
    if (!TOOL_NAME.test(definition.name)) {
      throw new Error(
        `Invalid tool name ${JSON.stringify(definition.name)}: use 1-128 characters of A-Z a-z 0-9 _ . -`,
      );
    }
    const { inputSchema, outputSchema, ...rest } = definition;
    const tool: Tool = {
      ...rest,
      inputSchema: inputSchema
        ? toJsonSchema(inputSchema, "input", `tool ${rest.name}: inputSchema`)
        : { type: "object" },
    };
    if (outputSchema) {
      tool.outputSchema = toJsonSchema(outputSchema, "output", `tool ${rest.name}: outputSchema`);
    }
    // Refuse an unusable schema (shape, size, depth, dialect) now, but compile it on the first
    // call: ajv and a first compile were ~70 ms of a server's start-up, before tools/list.
    this.validator.precheck(tool.inputSchema);
    if (tool.outputSchema) this.validator.precheck(tool.outputSchema);
    checkHeaderAnnotations(tool);
    const ownRequires = options.requiredClientCapabilities as JsonObject | undefined;
    if (ownRequires !== undefined) checkRequiredCapabilities(ownRequires, `tool ${tool.name}`);
    let requires = ownRequires;
    const scopes = checkScopes(options.scopes, `tool ${tool.name}`);
    const task = checkToolTask(options.task, tool.name);
    if (task?.support === "required") requires = mergeRequirement(requires, tasksRequirement());
    return this.tools.set(tool.name, {
      tool,
      // The parsers below make the handler's typed view true at run time.
      handler: handler as unknown as ToolHandler,
      requires,
      ownRequires,
      scopes,
      task,
      parseInput: standardParser(inputSchema, "arguments"),
      parseOutput: standardParser(outputSchema, "structuredContent"),
    });
  }

  /** Whether any registered tool may run as a task (then the extension is advertised). */
  get hasTaskTools(): boolean {
    for (const entry of this.tools.values()) if (entry.task) return true;
    return false;
  }

  addResource(resource: Resource, read: ReadHandler, options: ResourceOptions = {}): () => void {
    checkScopes(options.scopes, `resource ${JSON.stringify(resource.uri)}`);
    if (options.cache !== undefined) {
      checkCacheHint(options.cache, `resource ${JSON.stringify(resource.uri)}: cache`);
    }
    return this.resources.set(resource.uri, { resource, read, options });
  }

  addTemplate(
    template: ResourceTemplate,
    read: TemplateReadHandler,
    options: TemplateOptions = {},
  ): () => void {
    checkScopes(options.scopes, `resource template ${JSON.stringify(template.uriTemplate)}`);
    if (options.cache !== undefined) {
      checkCacheHint(
        options.cache,
        `resource template ${JSON.stringify(template.uriTemplate)}: cache`,
      );
    }
    const matcher = new UriTemplate(template.uriTemplate);
    return this.templates.set(template.uriTemplate, { template, matcher, read, options });
  }

  addPrompt(prompt: Prompt, handler: PromptHandler, options: PromptOptions = {}): () => void {
    checkScopes(options.scopes, `prompt ${prompt.name}`);
    return this.prompts.set(prompt.name, { prompt, handler, options });
  }

  /** `legacyTasks`: with each task tool's 2025-11-25 execution.taskSupport. */
  listTools(params: JsonObject, pageSize?: number, legacyTasks = false): JsonObject {
    const { page, nextCursor } = paginate(
      [...this.tools.values()].map((entry) =>
        legacyTasks && entry.task
          ? {
              ...entry.tool,
              execution: {
                ...((entry.tool as unknown as JsonObject).execution as JsonObject | undefined),
                taskSupport: entry.task.support,
              },
            }
          : entry.tool,
      ),
      params.cursor,
      pageSize,
    );
    return withCursor({ tools: page }, nextCursor);
  }

  listResources(params: JsonObject, pageSize?: number): JsonObject {
    const all = [...this.resources.values()].map((entry) => entry.resource);
    const { page, nextCursor } = paginate(all, params.cursor, pageSize);
    return withCursor({ resources: page }, nextCursor);
  }

  listTemplates(params: JsonObject, pageSize?: number): JsonObject {
    const all = [...this.templates.values()].map((entry) => entry.template);
    const { page, nextCursor } = paginate(all, params.cursor, pageSize);
    return withCursor({ resourceTemplates: page }, nextCursor);
  }

  listPrompts(params: JsonObject, pageSize?: number): JsonObject {
    const all = [...this.prompts.values()].map((entry) => entry.prompt);
    const { page, nextCursor } = paginate(all, params.cursor, pageSize);
    return withCursor({ prompts: page }, nextCursor);
  }

  async callTool(
    params: JsonObject,
    context: HandlerContext,
    tasks?: TaskManager,
  ): Promise<JsonObject> {
    const name = params.name;
    if (typeof name !== "string") throw new InvalidParamsError('tools/call needs a string "name"');
    const entry = this.tools.get(name);
    if (!entry) throw new InvalidParamsError(`Unknown tool: ${name}`, { name });
    // A legacy session asks for a task with params.task, not by declaring the extension.
    const legacyTask = entry.task !== undefined && context.era === "legacy";
    const requires = legacyTask ? entry.ownRequires : entry.requires;
    const lacking = requirementError(requires, context.clientCapabilities);
    if (lacking) throw lacking;
    let args: unknown = params.arguments ?? {};
    // Arguments that are no object break CallToolRequest itself: a protocol error (-32602,
    // tools.mdx "Error Handling"), where a schema violation below is a tool error.
    if (!isPlainObject(args))
      throw new InvalidParamsError('tools/call "arguments" must be an object');
    // Spec: argument validation failures are tool errors the model can see and fix.
    if (entry.parseInput) {
      const parsed = await entry.parseInput(args);
      if (!parsed.ok) return toolError(`Invalid arguments for tool ${name}: ${parsed.message}`);
      args = parsed.value;
    } else {
      const check = this.compiled(name, entry.tool.inputSchema)(args);
      if (!check.ok) return toolError(`Invalid arguments for tool ${name}: ${check.message}`);
    }
    const invoke = async (handlerContext: HandlerContext) =>
      this.checkedResult(name, entry, await entry.handler(args as JsonObject, handlerContext));
    if (entry.task && tasks)
      return callWithTask(tasks, entry.task, args as JsonObject, context, invoke, params.task);
    if (params.task !== undefined && context.era === "legacy" && tasks && this.hasTaskTools) {
      // "SHOULD return a -32601" for a task asked of a tool that cannot be one (tasks.mdx).
      throw new JsonRpcError(ErrorCode.MethodNotFound, `Tool ${name} cannot run as a task`);
    }
    return invoke(context);
  }

  /** The handler's answer as a CallToolResult, checked against the tool's outputSchema. */
  private checkedResult(
    name: string,
    entry: RegisteredTool,
    returned: ToolReturn,
  ): JsonObject | Promise<JsonObject> {
    const result: CallToolResult =
      typeof returned === "string" ? { content: [{ type: "text", text: returned }] } : returned;
    if (entry.tool.outputSchema && !result.isError) {
      if (result.structuredContent === undefined) {
        throw new InternalError(
          `Tool ${name} declares an outputSchema but returned no structuredContent`,
        );
      }
      if (entry.parseOutput) return this.parsedResult(name, entry.parseOutput, result);
      // Name the value checked: "arguments/…" here sent authors looking at the wrong side.
      const output = this.compiled(name, entry.tool.outputSchema)(
        result.structuredContent,
        "structuredContent",
      );
      if (!output.ok) {
        throw new InternalError(
          `Tool ${name} returned structuredContent that does not match its outputSchema: ${output.message}`,
        );
      }
    }
    return result as JsonObject;
  }

  /** The result with structuredContent as the schema library validated and transformed it. */
  private async parsedResult(
    name: string,
    parse: StandardParser,
    result: CallToolResult,
  ): Promise<JsonObject> {
    const parsed = await parse(result.structuredContent);
    if (!parsed.ok) {
      throw new InternalError(
        `Tool ${name} returned structuredContent that does not match its outputSchema: ${parsed.message}`,
      );
    }
    return { ...result, structuredContent: parsed.value } as JsonObject;
  }

  /** The tool's validator for `schema`; a schema only the engine finds broken is the server's fault. */
  private compiled(name: string, schema: JsonSchema): CompiledValidator {
    try {
      return this.validator.compile(schema);
    } catch (error) {
      if (!(error instanceof SchemaError)) throw error;
      throw new InternalError(`Tool ${name} has an unusable schema: ${error.message}`);
    }
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
    const direct = this.resources.get(uri);
    if (direct) return scopesOrNone(direct.options.scopes);
    for (const entry of this.templates.values()) {
      if (entry.matcher.match(uri)) return scopesOrNone(entry.options.scopes);
    }
    return undefined;
  }

  /** Returns the result and the caching hint that applies to it, if the resource set one. */
  async readResource(
    params: JsonObject,
    context: HandlerContext,
  ): Promise<{ result: JsonObject; cache?: CacheHint }> {
    const uri = params.uri;
    if (typeof uri !== "string")
      throw new InvalidParamsError('resources/read needs a string "uri"');
    const direct = this.resources.get(uri);
    if (direct) {
      const result = normaliseRead(await direct.read(uri, context));
      return { result, cache: direct.options.cache };
    }
    for (const entry of this.templates.values()) {
      const variables = entry.matcher.match(uri);
      if (variables) {
        const result = normaliseRead(await entry.read(uri, variables, context));
        return { result, cache: entry.options.cache };
      }
    }
    throw resourceNotFound(uri, context.era);
  }

  async getPrompt(params: JsonObject, context: HandlerContext): Promise<JsonObject> {
    const name = params.name;
    if (typeof name !== "string") throw new InvalidParamsError('prompts/get needs a string "name"');
    const entry = this.prompts.get(name);
    if (!entry) throw new InvalidParamsError(`Unknown prompt: ${name}`, { name });
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      throw new InvalidParamsError("prompt arguments must be an object");
    }
    for (const [key, value] of Object.entries(args)) {
      if (typeof value !== "string") {
        throw new InvalidParamsError(`Prompt argument ${key} must be a string`);
      }
    }
    for (const argument of entry.prompt.arguments ?? []) {
      if (argument.required && args[argument.name] === undefined) {
        throw new InvalidParamsError(
          `Missing required argument ${argument.name} for prompt ${name}`,
        );
      }
    }
    return (await entry.handler(args as Record<string, string>, context)) as JsonObject;
  }

  async complete(params: JsonObject): Promise<CompleteResult> {
    const ref = params.ref as JsonObject | undefined;
    const argument = params.argument as JsonObject | undefined;
    if (!ref || typeof argument?.name !== "string" || typeof argument.value !== "string") {
      throw new InvalidParamsError("completion/complete needs ref and argument {name, value}");
    }
    const context = {
      arguments: ((params.context as JsonObject | undefined)?.arguments ?? {}) as Record<
        string,
        string
      >,
    };
    let completers: Record<string, Completer> | undefined;
    if (ref.type === "ref/prompt" && typeof ref.name === "string") {
      const entry = this.prompts.get(ref.name);
      if (!entry) throw new InvalidParamsError(`Unknown prompt: ${ref.name}`);
      completers = entry.options.complete;
    } else if (ref.type === "ref/resource" && typeof ref.uri === "string") {
      const entry = this.templates.get(ref.uri);
      if (!entry && !this.resources.get(ref.uri)) {
        throw new InvalidParamsError(`Unknown resource template: ${ref.uri}`);
      }
      completers = entry?.options.complete;
    } else {
      throw new InvalidParamsError("completion ref must be ref/prompt or ref/resource");
    }
    const completer = completers?.[argument.name];
    const values = completer ? await completer(argument.value, context) : [];
    return {
      completion: {
        values: values.slice(0, MAX_COMPLETIONS),
        total: values.length,
        hasMore: values.length > MAX_COMPLETIONS,
      },
    };
  }
}

/**
 * A Streamable HTTP client must drop a tool whose `x-mcp-header` annotations break the rules
 * (2026-07-28 basic/transports/streamable-http.mdx, "Schema Extension"; server/tools.mdx,
 * "x-mcp-header"): refuse it here, where its author sees why, rather than let it vanish silently.
 */
function checkHeaderAnnotations(tool: Tool): void {
  const { invalid } = scanHeaderAnnotations(tool.inputSchema);
  if (invalid !== undefined) {
    throw new Error(
      `Tool ${tool.name} has an invalid ${X_MCP_HEADER} annotation (HTTP clients would drop the tool): property ${invalid}`,
    );
  }
}

/** Refuses task options that make no sense; undefined when the tool never runs as a task. */
function checkToolTask(
  task: ToolTaskOptions | undefined,
  name: string,
): ToolTaskOptions | undefined {
  if (task === undefined || task.support === "never") return undefined;
  if (task.support !== "optional" && task.support !== "required") {
    throw new Error(`tool ${name}: task.support must be "never", "optional" or "required"`);
  }
  if (task.start !== undefined && task.start !== "call" && task.start !== "handler") {
    throw new Error(`tool ${name}: task.start must be "call" or "handler"`);
  }
  checkTaskTimes(task, `tool ${name}: task`);
  return task;
}

/** `extra` added to a tool's declared requirements, one level deep. */
function mergeRequirement(requires: JsonObject | undefined, extra: JsonObject): JsonObject {
  const merged: JsonObject = Object.assign({}, requires);
  for (const [name, value] of Object.entries(extra)) {
    merged[name] = Object.assign({}, merged[name] as JsonObject | undefined, value as JsonObject);
  }
  return merged;
}

export function toolError(text: string): JsonObject {
  return { content: [{ type: "text", text }], isError: true };
}

function resourceNotFound(uri: string, era: Era): JsonRpcError {
  // 2026-07-28 uses -32602 with data.uri; earlier revisions defined -32002.
  const code = era === "modern" ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound;
  return new JsonRpcError(code, `Resource not found: ${uri}`, { uri });
}

function normaliseRead(value: ReadResourceResult | ResourceContents[]): JsonObject {
  return (Array.isArray(value) ? { contents: value } : value) as JsonObject;
}

function withCursor(result: JsonObject, nextCursor: string | undefined): JsonObject {
  if (nextCursor !== undefined) result.nextCursor = nextCursor;
  return result;
}
