/**
 * The schema mistakes an interpreting engine would otherwise meet at every call (ajv finds them
 * by checking the meta-schema when it compiles): wrong keyword shapes, patterns that are not
 * regular expressions, and keywords the cfworker engine would silently skip.
 */
import type { JsonObject } from "../jsonrpc/types.js";
import { SchemaError } from "./validator.js";

const TYPES = new Set(["array", "boolean", "integer", "null", "number", "object", "string"]);
const ONE_SCHEMA = [
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
];
const SCHEMA_LISTS = ["prefixItems", "allOf", "anyOf", "oneOf"];
const SCHEMA_MAPS = ["$defs", "definitions", "properties", "patternProperties", "dependentSchemas"];
const NUMBERS = [
  "minimum",
  "maximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "minContains",
  "maxContains",
];

/** Throws a SchemaError for the first problem; may drop a `format` only inherited names match. */
export function checkSchemaKeywords(root: JsonObject): void {
  const stack: Array<[unknown, string]> = [[root, "#"]];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (typeof node === "boolean") continue;
    if (typeof node !== "object" || node === null || Array.isArray(node)) {
      throw invalid(at, "a subschema must be an object or a boolean");
    }
    const schema = node as Record<string, unknown>;
    checkOne(schema, at);
    for (const key of ONE_SCHEMA) if (key in schema) stack.push([schema[key], `${at}/${key}`]);
    // items: a schema, or (draft-07) a list of them.
    if (Array.isArray(schema.items)) pushAll(stack, schema.items, `${at}/items`);
    else if ("items" in schema) stack.push([schema.items, `${at}/items`]);
    for (const key of SCHEMA_LISTS) {
      if (!(key in schema)) continue;
      const list = schema[key];
      if (!Array.isArray(list)) throw invalid(`${at}/${key}`, "must be an array of schemas");
      pushAll(stack, list, `${at}/${key}`);
    }
    for (const key of SCHEMA_MAPS) {
      if (!(key in schema)) continue;
      const map = schema[key];
      if (typeof map !== "object" || map === null || Array.isArray(map)) {
        throw invalid(`${at}/${key}`, "must be an object of schemas");
      }
      for (const [name, child] of Object.entries(map)) stack.push([child, `${at}/${key}/${name}`]);
    }
  }
}

function pushAll(stack: Array<[unknown, string]>, list: unknown[], at: string): void {
  for (let i = 0; i < list.length; i++) stack.push([list[i], `${at}/${i}`]);
}

function checkOne(schema: Record<string, unknown>, at: string): void {
  if ("$dynamicRef" in schema) {
    throw new SchemaError(
      `JSON Schema $dynamicRef (at ${at}) is not supported by @cfworker/json-schema; use ajvValidator() where code generation is allowed`,
    );
  }
  if ("$async" in schema) throw new SchemaError("$async schemas are not supported");
  const type = schema.type;
  if (type !== undefined) {
    const names = Array.isArray(type) ? type : [type];
    for (const name of names) {
      if (typeof name !== "string" || !TYPES.has(name)) {
        throw invalid(`${at}/type`, `${JSON.stringify(name)} is not a JSON type`);
      }
    }
  }
  const required = schema.required;
  if (
    required !== undefined &&
    (!Array.isArray(required) || required.some((k) => typeof k !== "string"))
  ) {
    throw invalid(`${at}/required`, "must be an array of strings");
  }
  if (schema.enum !== undefined && !Array.isArray(schema.enum))
    throw invalid(`${at}/enum`, "must be an array");
  for (const key of NUMBERS) {
    if (key in schema && typeof schema[key] !== "number")
      throw invalid(`${at}/${key}`, "must be a number");
  }
  if ("pattern" in schema) checkPattern(schema.pattern, `${at}/pattern`);
  const patterns = schema.patternProperties;
  if (typeof patterns === "object" && patterns !== null) {
    for (const pattern of Object.keys(patterns)) checkPattern(pattern, `${at}/patternProperties`);
  }
  // The engine looks formats up in a plain object: "constructor" would find Object's.
  if (typeof schema.format === "string" && schema.format in Object.prototype) delete schema.format;
}

function checkPattern(pattern: unknown, at: string): void {
  try {
    if (typeof pattern !== "string") throw new Error("must be a string");
    new RegExp(pattern, "u"); // the flag the engine uses
  } catch (error) {
    throw invalid(at, `${JSON.stringify(pattern)} is not a regular expression (${String(error)})`);
  }
}

function invalid(at: string, problem: string): SchemaError {
  return new SchemaError(`Invalid JSON Schema: ${at}: ${problem}`);
}
