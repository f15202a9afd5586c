import { InternalError, InvalidParamsError, isPlainObject } from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import { isThenable } from "../platform/thenable.js";
import { scanHeaderAnnotations, X_MCP_HEADER } from "../protocol/header-annotations.js";
import type { CallToolResult, Tool } from "../protocol/mcp-types.js";
import type { Era } from "../protocol/versions.js";
import {
  CompiledSchemas,
  type CompiledValidator,
  type JsonSchema,
} from "../schema/compiled-schemas.js";
import { defaultValidator } from "../schema/default-validator.js";
import { SchemaError, type SchemaValidator } from "../schema/validator.js";
import type { HandlerContext } from "./context.js";
import { paginate, Registry, withCursor } from "./registry.js";
import { checkRequiredCapabilities, requirementError } from "./required-capabilities.js";
import {
  type SchemaInput,
  type SchemaOutput,
  type SchemaSource,
  type StandardParser,
  standardParser,
  toJsonSchema,
} from "./schema-source.js";
import { checkScopes } from "./scopes.js";
import type { AdoptedTool, ToolCallHook, ToolInvocation } from "./tool-hooks.js";
import type { ToolOptions } from "./tool-options.js";

export type { ToolOptions } from "./tool-options.js";

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

interface RegisteredTool {
  tool: Tool;
  handler: ToolHandler;
  options: ToolOptions;
  /** What a modern caller must have declared: the tool's own needs and its extensions'. */
  requires: JsonObject | undefined;
  /** options.requiredClientCapabilities alone (what a legacy caller must have declared). */
  ownRequires: JsonObject | undefined;
  /** options.scopes, when any. */
  scopes: readonly string[] | undefined;
  /** The extensions taking part in its calls (see ToolCallHook), usually none. */
  adopted: Adoption[];
  /** The schema library's own validators, for schema-library schemas (else ajv checks). */
  parseInput: StandardParser | undefined;
  parseOutput: StandardParser | undefined;
}

interface Adoption {
  hook: ToolCallHook;
  role: AdoptedTool;
}

const NOTHING_ADOPTED: Adoption[] = [];
/** The ToolOptions the registry reads itself. */
const CORE_OPTIONS = new Set(["requiredClientCapabilities", "scopes"]);

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * The server's tools: registration (names, schemas, options checked up front), tools/list and
 * tools/call. Schemas are compiled on a tool's first call.
 */
export class ToolRegistry extends Registry<RegisteredTool> {
  private readonly validator: CompiledSchemas;
  private readonly hooks: ToolCallHook[] = [];

  constructor(onChange: () => void, engine?: SchemaValidator) {
    super(onChange);
    this.validator = new CompiledSchemas(() => engine ?? defaultValidator());
  }

  /** An extension's part in tool calls: offered every tool registered so far and from now on. */
  addHook(hook: ToolCallHook): void {
    for (const entry of this.values()) {
      const role = hook.adopt(entry.tool.name, entry.options);
      if (role) this.adoptInto(entry, { hook, role });
    }
    this.hooks.push(hook);
  }

  /** Whether any registered tool takes part in `hook`'s extension. */
  adoptedBy(hook: ToolCallHook): boolean {
    for (const entry of this.values()) {
      if (entry.adopted.some((adoption) => adoption.hook === hook)) return true;
    }
    return false;
  }

  add<I extends SchemaSource, O extends SchemaSource>(
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
    this.checkOptionNames(tool.name, options);
    const ownRequires = options.requiredClientCapabilities as JsonObject | undefined;
    if (ownRequires !== undefined) checkRequiredCapabilities(ownRequires, `tool ${tool.name}`);
    const entry: RegisteredTool = {
      tool,
      options,
      // The parsers below make the handler's typed view true at run time.
      handler: handler as unknown as ToolHandler,
      requires: ownRequires,
      ownRequires,
      scopes: checkScopes(options.scopes, `tool ${tool.name}`),
      adopted: NOTHING_ADOPTED,
      parseInput: standardParser(inputSchema, "arguments"),
      parseOutput: standardParser(outputSchema, "structuredContent"),
    };
    for (const hook of this.hooks) {
      const role = hook.adopt(tool.name, options);
      if (role) this.adoptInto(entry, { hook, role });
    }
    return this.set(tool.name, entry);
  }

  /** An option no one reads is a mistake to report, not a setting to drop (a base server's `task`). */
  private checkOptionNames(name: string, options: ToolOptions): void {
    for (const [key, value] of Object.entries(options)) {
      if (value === undefined || CORE_OPTIONS.has(key)) continue;
      if (this.hooks.some((hook) => hook.option === key)) continue;
      throw new Error(
        `tool ${name}: option ${JSON.stringify(key)} is read by no extension installed on this server`,
      );
    }
  }

  private adoptInto(entry: RegisteredTool, adoption: Adoption): void {
    entry.adopted = [...entry.adopted, adoption];
    const extra = adoption.role.requires;
    if (extra !== undefined) entry.requires = mergeRequirement(entry.requires, extra);
  }

  list(params: JsonObject, pageSize: number | undefined, era: Era): JsonObject {
    const { page, nextCursor } = paginate(
      [...this.values()].map((entry) => {
        let tool = entry.tool;
        for (const { role } of entry.adopted) if (role.listed) tool = role.listed(tool, era);
        return tool;
      }),
      params.cursor,
      pageSize,
    );
    return withCursor({ tools: page }, nextCursor);
  }

  /**
   * Runs a tools/call. Not async: a tool that answers with a value is answered without a promise
   * per layer (each cost a resolve step on every call). Throws or rejects: callers await it.
   */
  call(params: JsonObject, context: HandlerContext): JsonObject | Promise<JsonObject> {
    const name = params.name;
    if (typeof name !== "string") throw new InvalidParamsError('tools/call needs a string "name"');
    const entry = this.get(name);
    if (!entry) throw new InvalidParamsError(`Unknown tool: ${name}`, { name });
    const requires = context.era === "legacy" ? entry.ownRequires : entry.requires;
    const lacking = requirementError(requires, context.clientCapabilities);
    if (lacking) throw lacking;
    const args = params.arguments ?? {};
    // Arguments that are no object break CallToolRequest itself: a protocol error (-32602,
    // tools.mdx "Error Handling"), where a schema violation below is a tool error.
    if (!isPlainObject(args))
      throw new InvalidParamsError('tools/call "arguments" must be an object');
    // Spec: argument validation failures are tool errors the model can see and fix.
    const { parseInput } = entry;
    if (parseInput) return this.callParsed(name, entry, parseInput, args, params, context);
    const check = this.compiled(name, entry.tool.inputSchema)(args);
    if (!check.ok) return toolError(`Invalid arguments for tool ${name}: ${check.message}`);
    return this.invoke(name, entry, args, params, context);
  }

  /** A call whose arguments the schema library validates (and may transform) first. */
  private async callParsed(
    name: string,
    entry: RegisteredTool,
    parseInput: StandardParser,
    args: JsonObject,
    params: JsonObject,
    context: HandlerContext,
  ): Promise<JsonObject> {
    const parsed = await parseInput(args);
    if (!parsed.ok) return toolError(`Invalid arguments for tool ${name}: ${parsed.message}`);
    return this.invoke(name, entry, parsed.value as JsonObject, params, context);
  }

  /** The handler with checked arguments, inside the extensions that adopted the tool. */
  private invoke(
    name: string,
    entry: RegisteredTool,
    args: JsonObject,
    params: JsonObject,
    context: HandlerContext,
  ): JsonObject | Promise<JsonObject> {
    const { adopted } = entry;
    if (adopted.length === 0) {
      for (const hook of this.hooks) hook.refuse?.(name, params, context);
      const returned = entry.handler(args, context);
      // Promise.resolve: the handler's own promise as is, another thenable adopted.
      return isThenable(returned)
        ? Promise.resolve(returned).then((value) => this.checkedResult(name, entry, value))
        : this.checkedResult(name, entry, returned);
    }
    // An extension's `invoke` is promised a promise (ToolInvocation).
    let run: ToolInvocation = async (handlerContext) =>
      this.checkedResult(name, entry, await entry.handler(args, handlerContext));
    // The first extension to adopt the tool runs outermost.
    for (let i = adopted.length - 1; i >= 0; i--) {
      const { role } = adopted[i]!;
      const next = run;
      run = (callContext) => role.call({ name, args, params, context: callContext, invoke: next });
    }
    return run(context);
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
