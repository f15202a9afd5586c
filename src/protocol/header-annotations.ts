/**
 * `x-mcp-header` annotations in a tool's inputSchema (2026-07-28, SEP-2243): which argument
 * values are mirrored into `Mcp-Param-{Name}` headers, and whether the annotations are valid.
 */
import { isPlainObject } from "../jsonrpc/errors.js";
import { paramHeaderName, paramHeaderValue } from "./http-headers.js";

export const X_MCP_HEADER = "x-mcp-header";

interface HeaderAnnotation {
  /** The annotation value: the `{Name}` of `Mcp-Param-{Name}`. */
  name: string;
  /** Chain of `properties` keys from the schema root to the annotated property. */
  path: string[];
  /** The property's declared JSON Schema type, when it is a single string. */
  type: string | undefined;
}

interface AnnotationScan {
  /** Every annotation found on a `properties` chain, valid or not (the server checks these). */
  annotations: HeaderAnnotation[];
  /** Set when the tool definition is invalid; a client drops such a tool from its list. */
  invalid?: string;
}

/** RFC 9110 token characters (`1*tchar`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE_TYPES = new Set(["string", "integer", "boolean"]);
/** Keywords whose subschemas are not statically reachable through `properties` alone. */
const SUBSCHEMA_KEYWORDS = [
  "items",
  "prefixItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "patternProperties",
  "dependentSchemas",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$defs",
  "definitions",
  // draft-07 spellings, and a keyword that holds a schema of decoded content.
  "additionalItems",
  "dependencies",
  "contentSchema",
];
/** Of those, the ones whose value maps names to subschemas. */
const MAP_KEYWORDS = new Set([
  "patternProperties",
  "dependentSchemas",
  "$defs",
  "definitions",
  "dependencies",
]);

const scans = new WeakMap<object, AnnotationScan>();

/** Scans an inputSchema once (cached per schema object). */
export function scanHeaderAnnotations(inputSchema: unknown): AnnotationScan {
  if (!isPlainObject(inputSchema)) return { annotations: [] };
  const cached = scans.get(inputSchema);
  if (cached) return cached;
  const scan: AnnotationScan = { annotations: [] };
  /** Lowercased name → where it was first used, for the case-insensitive uniqueness rule. */
  const seen = new Map<string, { raw: string; where: string }>();
  const fail = (reason: string) => {
    scan.invalid ??= reason;
  };

  const visit = (node: unknown, path: string[], reachable: boolean): void => {
    if (!isPlainObject(node)) return;
    if (X_MCP_HEADER in node) {
      const where = path.length === 0 ? "<root>" : path.join(".");
      const raw = node[X_MCP_HEADER];
      if (!reachable || path.length === 0) {
        fail(
          `${where}: ${X_MCP_HEADER} is only allowed on properties reached through "properties"`,
        );
      } else if (typeof raw !== "string" || raw === "") {
        fail(`${where}: ${X_MCP_HEADER} must be a non-empty string`);
      } else {
        const type = typeof node.type === "string" ? node.type : undefined;
        if (!TOKEN.test(raw)) fail(`${where}: ${X_MCP_HEADER} "${raw}" is not an HTTP token`);
        if (!type || !PRIMITIVE_TYPES.has(type)) {
          fail(`${where}: ${X_MCP_HEADER} needs a string, integer or boolean property`);
        }
        const lower = raw.toLowerCase();
        const earlier = seen.get(lower);
        if (earlier !== undefined) {
          fail(
            `${where}: ${X_MCP_HEADER} "${raw}" duplicates "${earlier.raw}" of ${earlier.where} (header names are case-insensitive)`,
          );
        } else seen.set(lower, { raw, where });
        scan.annotations.push({ name: raw, path, type });
      }
    }
    if (isPlainObject(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) {
        visit(child, [...path, key], reachable);
      }
    }
    for (const keyword of SUBSCHEMA_KEYWORDS) {
      const sub = node[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : MAP_KEYWORDS.has(keyword) && isPlainObject(sub)
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) visit(branch, [...path, `<${keyword}>`], false);
    }
  };
  visit(inputSchema, [], true);
  scans.set(inputSchema, scan);
  return scan;
}

/** The argument value at an annotation's property path; undefined when any step is missing. */
export function valueAtPath(args: unknown, path: readonly string[]): unknown {
  let current = args;
  for (const key of path) {
    if (!isPlainObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/**
 * Client side: the `Mcp-Param-*` headers for one tools/call, from the tool's inputSchema and the
 * call arguments. Null and absent values get no header.
 */
export function paramHeadersFor(inputSchema: unknown, args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const annotation of scanHeaderAnnotations(inputSchema).annotations) {
    const value = paramHeaderValue(valueAtPath(args, annotation.path));
    if (value !== undefined) headers[paramHeaderName(annotation.name)] = value;
  }
  return headers;
}
