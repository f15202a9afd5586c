/**
 * Tool argument validation: JSON Schemas compiled once with ajv and cached per schema object.
 *
 * MCP schemas default to JSON Schema 2020-12; `$schema` may select 2019-09 or draft-07. Schemas
 * are published to clients as-is, so compiling must never alter them and never reach the
 * network. Cost is bounded where it can be cheaply: schemas deeper than `maxDepth` or larger
 * than `maxSchemaBytes` are refused before ajv sees them, and data too deep for the generated
 * (recursive) validator yields a failed result instead of a stack overflow.
 *
 * Not bounded: regular expressions in `pattern`/`patternProperties` run on V8's backtracking
 * engine, so a schema author can write a pattern with catastrophic backtracking (ReDoS) that a
 * client's argument then triggers. Schemas are written by the server, not the client, so this
 * is the author's responsibility; pass `regExp` (e.g. an RE2 wrapper) to swap the engine.
 */

import { createRequire } from "node:module";
import type { Ajv, CodeOptions, ErrorObject, Options } from "ajv";
import type { Ajv2019 } from "ajv/dist/2019.js";
import type { Ajv2020 } from "ajv/dist/2020.js";

// ajv (one dialect class at a time) and ajv-formats load on the first compile, not at import:
// loading them was about half of a stdio server's start-up in the cold-start profile, and a
// server answers initialize and tools/list without them. Both are CommonJS, so require()
// loads them synchronously where compile() needs them.
const require = createRequire(import.meta.url);

export type ValidationResult = { ok: true } | { ok: false; message: string };
/** `rootName` overrides the validator's default name for the value in messages. */
export type CompiledValidator = (value: unknown, rootName?: string) => ValidationResult;
/** A JSON Schema: an object (usually) or a boolean. */
export type JsonSchema = object | boolean;

export interface SchemaValidatorOptions {
  /** Printed before the instance path in messages ("arguments/foo: must be string"). */
  rootName?: string;
  /** Deepest JSON nesting accepted in a schema (objects and arrays). Default 64. */
  maxDepth?: number;
  /** Largest schema accepted, as serialised JSON in UTF-8 bytes. Default 1 MB. */
  maxSchemaBytes?: number;
  /** A replacement regex engine for `pattern` keywords (see ajv's `code.regExp`). */
  regExp?: CodeOptions["regExp"];
}

/** A schema that cannot be compiled: invalid, too big, unsupported dialect, unresolvable $ref. */
export class SchemaError extends Error {
  override name = "SchemaError";
}

export const DEFAULT_MAX_SCHEMA_DEPTH = 64;
export const DEFAULT_MAX_SCHEMA_BYTES = 1_000_000;

type Dialect = "2020-12" | "2019-09" | "draft-07";
type Engine = Ajv | Ajv2019 | Ajv2020;

/** `$schema` URIs as ajv registers them, keyed by a normalised form (https, no trailing #). */
const DIALECTS: ReadonlyMap<string, { dialect: Dialect; uri: string }> = new Map([
  [
    "https://json-schema.org/draft/2020-12/schema",
    { dialect: "2020-12", uri: "https://json-schema.org/draft/2020-12/schema" },
  ],
  [
    "https://json-schema.org/draft/2019-09/schema",
    { dialect: "2019-09", uri: "https://json-schema.org/draft/2019-09/schema" },
  ],
  [
    "https://json-schema.org/draft-07/schema",
    { dialect: "draft-07", uri: "http://json-schema.org/draft-07/schema#" },
  ],
]);

const OK: ValidationResult = Object.freeze({ ok: true });

export class SchemaValidator {
  private readonly rootName: string;
  private readonly maxDepth: number;
  private readonly maxSchemaBytes: number;
  private readonly regExp: CodeOptions["regExp"];
  private readonly engines = new Map<Dialect, Engine>();
  // Keyed by the caller's schema object: a tool's schema compiles once, and a schema that
  // failed keeps failing cheaply. Weak, so dropped tools take their validators with them.
  private readonly cache = new WeakMap<object, CompiledValidator | SchemaError>();
  private readonly acceptAll: CompiledValidator = () => OK;
  private readonly rejectAll: CompiledValidator;

  constructor(options: SchemaValidatorOptions = {}) {
    this.rootName = options.rootName ?? "arguments";
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_SCHEMA_DEPTH;
    this.maxSchemaBytes = options.maxSchemaBytes ?? DEFAULT_MAX_SCHEMA_BYTES;
    this.regExp = options.regExp;
    const rejected: ValidationResult = { ok: false, message: `${this.rootName}: not allowed` };
    this.rejectAll = (_value, rootName) =>
      rootName === undefined ? rejected : { ok: false, message: `${rootName}: not allowed` };
  }

  /**
   * The cheap half of compile(), without ajv: refuses a schema of the wrong shape, too deep, too
   * big, cyclic or in an unsupported dialect. A server runs this at registration and compiles
   * on first use; errors only ajv can find (a malformed keyword, an unresolvable $ref) surface
   * then, from compile().
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
      compiled = this.build(schema as Record<string, unknown>);
    } catch (error) {
      const failure = error instanceof SchemaError ? error : describeCompileError(error);
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

  private build(schema: Record<string, unknown>): CompiledValidator {
    checkSize(schema, this.maxDepth, this.maxSchemaBytes);
    const { dialect, uri } = dialectOf(schema.$schema);
    // ajv knows each meta-schema under one spelling; give it that one on a shallow copy
    // rather than touching the published schema.
    const input =
      schema.$schema === undefined || schema.$schema === uri ? schema : { ...schema, $schema: uri };
    const engine = this.engine(dialect);
    const validate = withoutRegistryChanges(engine, input, () => engine.compile(input));
    if ((validate as { $async?: unknown }).$async)
      throw new SchemaError("$async schemas are not supported");
    const defaultRoot = this.rootName;
    return (value, rootName = defaultRoot) => {
      try {
        if (validate(value)) return OK;
      } catch (error) {
        // Data nested deeper than the generated recursive validator can follow.
        const problem =
          error instanceof RangeError ? "is nested too deeply to validate" : String(error);
        return { ok: false, message: `${rootName}: ${problem}` };
      }
      return { ok: false, message: describeError(validate.errors?.[0], rootName) };
    };
  }

  private engine(dialect: Dialect): Engine {
    let engine = this.engines.get(dialect);
    if (engine === undefined) {
      const options: Options = {
        strict: false, // MCP schemas carry annotations such as x-mcp-header; ignore them
        allErrors: false,
        useDefaults: false,
        coerceTypes: false,
        removeAdditional: false,
        addUsedSchema: false, // tools may share $id values; keep no global registry
        ownProperties: true, // `required: ["constructor"]` must not be met by Object.prototype
        logger: false, // unknown formats are ignored silently, never printed to stdout
        validateFormats: true,
        code: this.regExp ? { regExp: this.regExp } : {},
      };
      engine = new (engineClass(dialect))(options);
      // ajv-formats is CommonJS with its plugin as the module's export.
      (require("ajv-formats") as typeof import("ajv-formats").default)(engine);
      this.engines.set(dialect, engine);
    }
    return engine;
  }
}

function checkShape(schema: unknown): asserts schema is object {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new SchemaError("JSON Schema must be an object or a boolean");
  }
}

function engineClass(dialect: Dialect): new (options: Options) => Engine {
  if (dialect === "2020-12")
    return (require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js")).Ajv2020;
  if (dialect === "2019-09")
    return (require("ajv/dist/2019.js") as typeof import("ajv/dist/2019.js")).Ajv2019;
  return (require("ajv") as typeof import("ajv")).Ajv;
}

function dialectOf(value: unknown): { dialect: Dialect; uri: string | undefined } {
  if (value === undefined) return { dialect: "2020-12", uri: undefined };
  if (typeof value !== "string") throw new SchemaError("$schema must be a string");
  const key = value.replace(/#$/, "").replace(/^http:/, "https:");
  const known = DIALECTS.get(key);
  if (known === undefined) {
    throw new SchemaError(
      `Unsupported JSON Schema dialect "${value}": use 2020-12 (default), 2019-09 or draft-07`,
    );
  }
  return known;
}

/**
 * Refuses schemas that are too deep or too big, before ajv (recursive) sees them. The walk is
 * iterative and stops early: a cycle is infinitely deep, and every visited node serialises to
 * at least two bytes, so counting visits also bounds schemas that share subtrees.
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
  if (Buffer.byteLength(text) > maxBytes) {
    throw new SchemaError(`JSON Schema is larger than ${maxBytes} bytes`);
  }
}

/**
 * Runs an ajv compile and then undoes its bookkeeping: ajv caches every compiled schema and
 * records embedded `$id`s in instance-wide maps. Left there, they would pin memory and let a
 * later schema's unresolved `$ref` quietly resolve into an earlier, unrelated schema.
 */
function withoutRegistryChanges<T>(engine: Engine, schema: object, run: () => T): T {
  const refs = { ...engine.refs };
  const schemas = { ...engine.schemas };
  try {
    return run();
  } finally {
    engine.removeSchema(schema); // drops the cache entry (and any registration under its $id)
    restore(engine.refs, refs);
    restore(engine.schemas, schemas);
  }
}

function restore(target: Record<string, unknown>, saved: Record<string, unknown>): void {
  for (const key of Object.keys(target)) if (!(key in saved)) delete target[key];
  for (const [key, value] of Object.entries(saved)) target[key] = value;
}

function describeCompileError(error: unknown): SchemaError {
  const { MissingRefError } = require("ajv") as typeof import("ajv");
  if (error instanceof MissingRefError) {
    return new SchemaError(
      `JSON Schema $ref "${error.missingRef}" is not defined in the schema; ` +
        "remote references are never fetched",
    );
  }
  const text = error instanceof Error ? error.message : String(error);
  return new SchemaError(`Invalid JSON Schema: ${text}`);
}

/** "arguments/foo: must be string", with the offending name or values where ajv has them. */
function describeError(error: ErrorObject | undefined, rootName: string): string {
  if (error === undefined) return `${rootName}: is invalid`;
  let message = error.message ?? "is invalid";
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "additionalProperties") {
    message += ` ('${String(params.additionalProperty)}')`;
  } else if (error.keyword === "unevaluatedProperties") {
    message += ` ('${String(params.unevaluatedProperty)}')`;
  } else if (error.keyword === "enum" || error.keyword === "const") {
    const allowed = JSON.stringify(params.allowedValues ?? params.allowedValue);
    message += `: ${allowed.length > 80 ? `${allowed.slice(0, 80)}…` : allowed}`;
  }
  return `${rootName}${error.instancePath}: ${message}`;
}
