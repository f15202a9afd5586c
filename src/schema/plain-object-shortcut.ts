/**
 * A shortcut past the interpreting engine (cfworker) for the commonest tool schema: an object of
 * primitive-typed properties, such as `{ type: "object", properties: { text: { type: "string" } },
 * required: ["text"] }`. The engine reads some forty keywords off every schema object it visits,
 * about 40k instructions per call for that schema; the shortcut needs a few property reads.
 *
 * It only ever vouches that a value is valid: when it cannot (a mismatch, anything unusual), the
 * engine runs as before and gives the verdict and the message. So answers stay the engine's.
 */
import type { JsonObject } from "../jsonrpc/types.js";

/** True when the value certainly conforms; false means "ask the engine". */
export type ValidShortcut = (value: unknown) => boolean;

/** Keywords that never affect validity, in any dialect MCP schemas may use. */
const ANNOTATIONS = new Set([
  "$schema",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
]);

type LeafType = "string" | "number" | "integer" | "boolean" | "null";
const LEAF_TYPES: ReadonlySet<string> = new Set<LeafType>([
  "string",
  "number",
  "integer",
  "boolean",
  "null",
]);

/** The shortcut for `schema`, or undefined when it is not such a plain object schema. */
export function plainObjectShortcut(schema: JsonObject): ValidShortcut | undefined {
  const { type, properties = {}, required = [], additionalProperties = true } = schema;
  if (type !== "object" || !onlyKeywords(schema, ROOT_KEYWORDS)) return undefined;
  if (
    !isObject(properties) ||
    !Array.isArray(required) ||
    typeof additionalProperties !== "boolean"
  ) {
    return undefined;
  }
  const names: string[] = [];
  const types: LeafType[] = [];
  for (const [name, property] of Object.entries(properties)) {
    if (!isObject(property) || !onlyKeywords(property, LEAF_KEYWORDS)) return undefined;
    if (typeof property.type !== "string" || !LEAF_TYPES.has(property.type)) return undefined;
    names.push(name);
    types.push(property.type as LeafType);
  }
  if (!required.every((name) => typeof name === "string")) return undefined;
  const requiredNames = required as string[];
  const closed = !additionalProperties;

  return (value) => {
    if (!isObject(value)) return false;
    for (const name of requiredNames) if (!Object.hasOwn(value, name)) return false;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (Object.hasOwn(value, name) && !isOfType(value[name], types[i]!)) return false;
    }
    if (closed) {
      for (const name in value) {
        if (!Object.hasOwn(value, name) || !Object.hasOwn(properties, name)) return false;
      }
    }
    return true;
  };
}

const ROOT_KEYWORDS = new Set([
  ...ANNOTATIONS,
  "type",
  "properties",
  "required",
  "additionalProperties",
]);
const LEAF_KEYWORDS = new Set([...ANNOTATIONS, "type"]);

function onlyKeywords(schema: JsonObject, allowed: ReadonlySet<string>): boolean {
  return Object.keys(schema).every((keyword) => allowed.has(keyword));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isOfType(value: unknown, type: LeafType): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "integer":
      return Number.isInteger(value);
    default:
      return typeof value === type;
  }
}
