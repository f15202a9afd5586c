import type { JsonObject } from "../jsonrpc/types.js";
import { ignoreError } from "../text/ignored-error.js";

/**
 * The parts of Standard Schema v1 and Standard JSON Schema v1 (standardschema.dev) that tools
 * use, declared here so mcpwire needs no schema library at run time. zod 4 and other schema
 * libraries implement them on a `~standard` property.
 */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  /** Present in types only: what the schema accepts and what validation produces. */
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  /** Standard Schema: validates and transforms (defaults, coercions, transforms apply). */
  readonly validate?: (
    value: unknown,
    options?: { readonly libraryOptions?: Record<string, unknown> | undefined },
  ) => StandardResult<Output> | Promise<StandardResult<Output>>;
  /** Standard JSON Schema: describes the schema's input or output as JSON Schema. */
  readonly jsonSchema: {
    readonly input: (options: { target: string }) => Record<string, unknown>;
    readonly output: (options: { target: string }) => Record<string, unknown>;
  };
}

type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** A schema-library object that can describe itself as JSON Schema, which MCP publishes. */
export interface StandardJsonSchema<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaProps<Input, Output>;
}

/** A tool schema as users may give it: plain JSON Schema, or a schema-library object. */
export type SchemaSource = JsonObject | StandardJsonSchema;

/**
 * What a handler receives for a tool whose inputSchema is `S`: the schema's output type (after
 * defaults and transforms) for a schema-library object, a plain object for JSON Schema. The
 * tuple stops the conditional distributing over the SchemaSource union.
 */
export type SchemaOutput<S> = [S] extends [StandardJsonSchema]
  ? NonNullable<S["~standard"]["types"]>["output"]
  : JsonObject;

/** What a handler returns as structuredContent for a tool whose outputSchema is `S`. */
export type SchemaInput<S> = [S] extends [StandardJsonSchema]
  ? NonNullable<S["~standard"]["types"]>["input"]
  : JsonObject;

function isStandardJsonSchema(schema: SchemaSource): schema is StandardJsonSchema {
  const standard = (schema as { "~standard"?: { jsonSchema?: unknown } })["~standard"];
  return typeof standard === "object" && standard !== null && "jsonSchema" in standard;
}

/**
 * The JSON Schema to publish. Plain schemas pass through untouched (published verbatim);
 * library schemas are converted once, to 2020-12, the dialect MCP defaults to. An outputSchema
 * is published as the schema's output side: what clients receive after its transforms.
 */
export function toJsonSchema(
  schema: SchemaSource,
  direction: "input" | "output",
  where = "tool schema",
): JsonObject {
  if (!isStandardJsonSchema(schema)) {
    if ("~standard" in schema) {
      throw new Error(
        `${where}: this schema object implements Standard Schema but cannot describe itself as JSON Schema (Standard JSON Schema, as zod 4 schemas do); pass one that can, or plain JSON Schema`,
      );
    }
    return schema;
  }
  const standard = schema["~standard"];
  const convert = standard.jsonSchema[direction];
  try {
    return convert({ target: "draft-2020-12" }) as JsonObject;
  } catch (error) {
    // zod refuses to describe a transform's result (an outputSchema with .transform()) or a
    // Date; asked to, it publishes those parts as {} (any value). The schema still checks them.
    if (standard.vendor === "zod") {
      try {
        return convert({
          target: "draft-2020-12",
          libraryOptions: { unrepresentable: "any" },
        } as { target: string }) as JsonObject;
      } catch (retried) {
        ignoreError(`${where}: converting without unrepresentable types`, retried);
      }
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${where}: cannot be converted to JSON Schema: ${reason}`);
  }
}

type ParseResult = { ok: true; value: unknown } | { ok: false; message: string };
export type StandardParser = (value: unknown) => Promise<ParseResult>;

const MAX_ISSUES_SHOWN = 3;
const MAX_MESSAGE_CHARS = 1000;

/**
 * The schema's own validator when it has one (Standard Schema `validate`): it applies defaults
 * and transforms, which checking the generated JSON Schema with ajv would not. Undefined for
 * plain JSON Schema, which ajv validates.
 */
export function standardParser(
  schema: SchemaSource | undefined,
  rootName: string,
): StandardParser | undefined {
  if (schema === undefined || !isStandardJsonSchema(schema)) return undefined;
  const standard = schema["~standard"];
  if (typeof standard.validate !== "function") return undefined;
  return async (value) => {
    const result = await standard.validate!(value);
    if (result.issues === undefined) return { ok: true, value: result.value };
    return { ok: false, message: describeIssues(result.issues, rootName) };
  };
}

/** "arguments/days: Too big: expected number to be <=7", ajv-style, bounded in length. */
function describeIssues(issues: ReadonlyArray<StandardIssue>, rootName: string): string {
  if (issues.length === 0) return `${rootName}: is invalid`;
  const shown = issues.slice(0, MAX_ISSUES_SHOWN).map((issue) => {
    const path = (issue.path ?? []).map((segment) =>
      String(typeof segment === "object" && segment !== null ? segment.key : segment),
    );
    return `${[rootName, ...path].join("/")}: ${issue.message}`;
  });
  const more =
    issues.length > MAX_ISSUES_SHOWN ? ` (and ${issues.length - shown.length} more)` : "";
  const text = shown.join("; ") + more;
  // Paths echo the caller's keys, which may be long: keep the tool error readable.
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text;
}
