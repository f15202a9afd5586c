/**
 * The ajv engine: compiles each schema into JavaScript, the fastest validation there is, and the
 * default on Node, Bun and Deno.
 */
import type { CodeOptions, ErrorObject, Options } from "ajv";
import type { JsonObject } from "../jsonrpc/types.js";
import { type AjvEngine, type AjvModule, loadAjv } from "./ajv-module.js";
import {
  type SchemaCheck,
  type SchemaDialect,
  SchemaError,
  type SchemaValidator,
  unresolvedRef,
} from "./validator.js";

export interface AjvValidatorOptions {
  /** A replacement regex engine for `pattern` keywords (see ajv's `code.regExp`), e.g. RE2. */
  regExp?: CodeOptions["regExp"];
}

/** `$schema` as ajv registers each dialect's meta-schema. */
const META_URIS: Record<SchemaDialect, string> = {
  "2020-12": "https://json-schema.org/draft/2020-12/schema",
  "2019-09": "https://json-schema.org/draft/2019-09/schema",
  "draft-07": "http://json-schema.org/draft-07/schema#",
};

/** The ajv engine (code generation), Node's default. */
export function ajvValidator(options: AjvValidatorOptions = {}): SchemaValidator {
  let ajv: AjvModule | undefined;
  const engines = new Map<SchemaDialect, AjvEngine>();
  const engine = (dialect: SchemaDialect): AjvEngine => {
    ajv ??= loadAjv();
    let found = engines.get(dialect);
    if (found === undefined) {
      found = ajv.create(dialect, {
        strict: false, // MCP schemas carry annotations such as x-mcp-header; ignore them
        allErrors: false,
        useDefaults: false,
        coerceTypes: false,
        removeAdditional: false,
        addUsedSchema: false, // tools may share $id values; keep no global registry
        ownProperties: true, // `required: ["constructor"]` must not be met by Object.prototype
        logger: false, // unknown formats are ignored silently, never printed to stdout
        validateFormats: true,
        code: options.regExp ? { regExp: options.regExp } : {},
      } satisfies Options);
      engines.set(dialect, found);
    }
    return found;
  };
  return {
    name: "ajv",
    compile(schema, dialect) {
      const instance = engine(dialect);
      // ajv knows each meta-schema under one spelling; give it that one on a shallow copy
      // rather than touching the published schema.
      const uri = META_URIS[dialect];
      const input: JsonObject =
        schema.$schema === undefined || schema.$schema === uri
          ? schema
          : { ...schema, $schema: uri };
      let validate: ReturnType<AjvEngine["compile"]>;
      try {
        validate = withoutRegistryChanges(instance, input, () => instance.compile(input));
      } catch (error) {
        throw describeCompileError(error, ajv!);
      }
      if ((validate as { $async?: unknown }).$async)
        throw new SchemaError("$async schemas are not supported");
      const check: SchemaCheck = (value) =>
        validate(value) ? undefined : describeError(validate.errors?.[0]);
      return check;
    },
  };
}

/**
 * Runs an ajv compile and then undoes its bookkeeping: ajv caches every compiled schema and
 * records embedded `$id`s in instance-wide maps. Left there, they would pin memory and let a
 * later schema's unresolved `$ref` quietly resolve into an earlier, unrelated schema.
 */
function withoutRegistryChanges<T>(engine: AjvEngine, schema: object, run: () => T): T {
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

function describeCompileError(error: unknown, ajv: AjvModule): SchemaError {
  if (error instanceof SchemaError) return error;
  if (error instanceof ajv.MissingRefError) return unresolvedRef(error.missingRef);
  const text = error instanceof Error ? error.message : String(error);
  return new SchemaError(`Invalid JSON Schema: ${text}`);
}

/** "must be string" at "/foo", with the offending name or values where ajv has them. */
function describeError(error: ErrorObject | undefined): { instancePath: string; message: string } {
  if (error === undefined) return { instancePath: "", message: "is invalid" };
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
  return { instancePath: error.instancePath, message };
}
