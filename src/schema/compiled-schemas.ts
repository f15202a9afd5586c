/**
 * Tool schemas compiled once by a SchemaValidator (an engine) and cached per schema object, with
 * the checks every engine needs done once here.
 *
 * MCP schemas default to JSON Schema 2020-12; `$schema` may select 2019-09 or draft-07. Schemas
 * are published to clients as-is, so compiling must never alter them and never reach the
 * network. Cost is bounded where it can be cheaply: schemas deeper than `maxDepth` or larger
 * than `maxSchemaBytes` are refused before the engine sees them, and data too deep for a
 * recursive validator yields a failed result instead of a stack overflow.
 *
 * Not bounded: regular expressions in `pattern`/`patternProperties` run on the runtime's
 * backtracking engine, so a schema author can write a pattern with catastrophic backtracking
 * (ReDoS) that a client's argument then triggers. Schemas are written by the server, not the
 * client, so this is the author's responsibility (ajvValidator's `regExp` swaps the engine).
 */
import type { JsonObject } from "../jsonrpc/types.js";
import { utf8Length } from "../platform/utf8-length.js";
import {
  type SchemaCheck,
  type SchemaDialect,
  SchemaError,
  type SchemaValidator,
} from "./validator.js";

export type ValidationResult = { ok: true } | { ok: false; message: string };
/** `rootName` overrides the default name for the value in messages. */
export type CompiledValidator = (value: unknown, rootName?: string) => ValidationResult;
/** A JSON Schema: an object (usually) or a boolean. */
export type JsonSchema = object | boolean;

export interface CompiledSchemasOptions {
  /** Printed before the instance path in messages ("arguments/foo: must be string"). */
  rootName?: string;
  /** Deepest JSON nesting accepted in a schema (objects and arrays). Default 64. */
  maxDepth?: number;
  /** Largest schema accepted, as serialised JSON in UTF-8 bytes. Default 1 MB. */
  maxSchemaBytes?: number;
}

export const DEFAULT_MAX_SCHEMA_DEPTH = 64;
const DEFAULT_MAX_SCHEMA_BYTES = 1_000_000;

/** `$schema` URIs keyed by a normalised form (https, no trailing #). */
const DIALECTS: ReadonlyMap<string, SchemaDialect> = new Map([
  ["https://json-schema.org/draft/2020-12/schema", "2020-12"],
  ["https://json-schema.org/draft/2019-09/schema", "2019-09"],
  ["https://json-schema.org/draft-07/schema", "draft-07"],
]);

const OK: ValidationResult = Object.freeze({ ok: true });

export class CompiledSchemas {
  private readonly rootName: string;
  private readonly maxDepth: number;
  private readonly maxSchemaBytes: number;
  // Keyed by the caller's schema object: a tool's schema compiles once, and a schema that
  // failed keeps failing cheaply. Weak, so dropped tools take their validators with them.
  private readonly cache = new WeakMap<object, CompiledValidator | SchemaError>();
  private readonly acceptAll: CompiledValidator = () => OK;
  private readonly rejectAll: CompiledValidator;
  private engine: SchemaValidator | undefined;

  constructor(
    /** The engine, asked for once at the first compile (so a default costs nothing till then). */
    private readonly engineOf: () => SchemaValidator,
    options: CompiledSchemasOptions = {},
  ) {
    this.rootName = options.rootName ?? "arguments";
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_SCHEMA_DEPTH;
    this.maxSchemaBytes = options.maxSchemaBytes ?? DEFAULT_MAX_SCHEMA_BYTES;
    const rejected: ValidationResult = { ok: false, message: `${this.rootName}: not allowed` };
    this.rejectAll = (_value, rootName) =>
      rootName === undefined ? rejected : { ok: false, message: `${rootName}: not allowed` };
  }

  /**
   * The cheap half of compile(), without the engine: refuses a schema of the wrong shape, too
   * deep, too big, cyclic or in an unsupported dialect. A server runs this at registration and
   * compiles on first use; errors only the engine can find (a malformed keyword, an
   * unresolvable $ref) surface then, from compile().
   */
  precheck(schema: JsonSchema): void {
    if (typeof schema === "boolean") return;
    checkShape(schema);
    checkSize(schema, this.maxDepth, this.maxSchemaBytes);
    dialectOf((schema as Record<string, unknown>).$schema);
  }

  /** Compiles (or returns the cached validator for) `schema`; throws SchemaError if unusable. */
  compile(schema: JsonSchema): CompiledValidator {
    if (schema === true) return this.acceptAll;
    if (schema === false) return this.rejectAll;
    checkShape(schema);
    const cached = this.cache.get(schema);
    if (cached instanceof SchemaError) throw cached;
    if (cached !== undefined) return cached;
    let compiled: CompiledValidator;
    try {
      compiled = this.build(schema as JsonObject);
    } catch (error) {
      const failure =
        error instanceof SchemaError
          ? error
          : new SchemaError(
              `Invalid JSON Schema: ${error instanceof Error ? error.message : error}`,
            );
      this.cache.set(schema, failure);
      throw failure;
    }
    this.cache.set(schema, compiled);
    return compiled;
  }

  /** Validates `value` against `schema`, compiling it on first use. */
  check(schema: JsonSchema, value: unknown): ValidationResult {
    return this.compile(schema)(value);
  }

  private build(schema: JsonObject): CompiledValidator {
    checkSize(schema, this.maxDepth, this.maxSchemaBytes);
    this.engine ??= this.engineOf();
    const check: SchemaCheck = this.engine.compile(schema, dialectOf(schema.$schema));
    const defaultRoot = this.rootName;
    return (value, rootName = defaultRoot) => {
      let failure: ReturnType<SchemaCheck>;
      try {
        failure = check(value);
      } catch (error) {
        // Data nested deeper than a recursive validator can follow.
        const problem =
          error instanceof RangeError ? "is nested too deeply to validate" : String(error);
        return { ok: false, message: `${rootName}: ${problem}` };
      }
      if (failure === undefined) return OK;
      return { ok: false, message: `${rootName}${failure.instancePath}: ${failure.message}` };
    };
  }
}

function checkShape(schema: unknown): asserts schema is object {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new SchemaError("JSON Schema must be an object or a boolean");
  }
}

function dialectOf(value: unknown): SchemaDialect {
  if (value === undefined) return "2020-12";
  if (typeof value !== "string") throw new SchemaError("$schema must be a string");
  const known = DIALECTS.get(value.replace(/#$/, "").replace(/^http:/, "https:"));
  if (known === undefined) {
    throw new SchemaError(
      `Unsupported JSON Schema dialect "${value}": use 2020-12 (default), 2019-09 or draft-07`,
    );
  }
  return known;
}

/**
 * Refuses schemas that are too deep or too big, before an engine (recursive) sees them. The
 * walk is iterative and stops early: a cycle is infinitely deep, and every visited node
 * serialises to at least two bytes, so counting visits also bounds schemas that share subtrees.
 */
function checkSize(schema: object, maxDepth: number, maxBytes: number): void {
  const maxVisits = Math.floor(maxBytes / 2);
  let visits = 0;
  const stack: Array<[object, number]> = [[schema, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > maxDepth) throw new SchemaError(`JSON Schema nests deeper than ${maxDepth} levels`);
    if (++visits > maxVisits) throw new SchemaError(`JSON Schema is larger than ${maxBytes} bytes`);
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch (error) {
    throw new SchemaError(`JSON Schema is not serialisable as JSON: ${String(error)}`);
  }
  if (utf8Length(text) > maxBytes)
    throw new SchemaError(`JSON Schema is larger than ${maxBytes} bytes`);
}
