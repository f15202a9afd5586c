import type { JsonObject } from "../jsonrpc/types.js";

/**
 * A schema from a library that implements Standard JSON Schema (zod 4, valibot, arktype…):
 * it can describe itself as JSON Schema, which is all MCP needs on the wire.
 */
export interface StandardJsonSchema {
  readonly "~standard": {
    readonly jsonSchema: {
      readonly input: (options: { target: string }) => Record<string, unknown>;
      readonly output: (options: { target: string }) => Record<string, unknown>;
    };
  };
}

/** A tool schema as users may give it: plain JSON Schema, or a schema-library object. */
export type SchemaSource = JsonObject | StandardJsonSchema;

function isStandardJsonSchema(schema: SchemaSource): schema is StandardJsonSchema {
  const standard = (schema as { "~standard"?: { jsonSchema?: unknown } })["~standard"];
  return typeof standard === "object" && standard !== null && "jsonSchema" in standard;
}

/**
 * The JSON Schema to publish and validate with. Plain schemas pass through untouched (published
 * verbatim); library schemas are converted once, to 2020-12, the dialect MCP defaults to.
 */
export function toJsonSchema(schema: SchemaSource, direction: "input" | "output"): JsonObject {
  if (!isStandardJsonSchema(schema)) return schema;
  const converted = schema["~standard"].jsonSchema[direction]({ target: "draft-2020-12" });
  return converted as JsonObject;
}
