/**
 * The seam between mcpwire and a JSON Schema engine. An engine compiles one schema object of a
 * known dialect into a check; everything engines would otherwise each redo (boolean schemas,
 * size and depth limits, dialect detection, caching per schema object, message prefixes) lives
 * once in CompiledSchemas. Two engines ship: ajv (generates code: fastest, Node's default) and
 * @cfworker/json-schema (interprets: for runtimes that forbid code from strings, such as
 * Cloudflare Workers, the default under the workerd, worker and browser export conditions).
 */
import type { JsonObject } from "../jsonrpc/types.js";

/** The JSON Schema dialects MCP schemas may use; `$schema` picks one, 2020-12 by default. */
export type SchemaDialect = "2020-12" | "2019-09" | "draft-07";

/** Why a value failed: where (a JSON Pointer into the value, "" for the root) and what. */
export interface SchemaFailure {
  readonly instancePath: string;
  readonly message: string;
}

/** Checks one value against a compiled schema: undefined when it conforms. */
export type SchemaCheck = (value: unknown) => SchemaFailure | undefined;

/**
 * A JSON Schema engine, for McpServer's `validator` (tool arguments and structuredContent) and
 * McpClient's (structuredContent against a listed outputSchema).
 */
export interface SchemaValidator {
  /** Named in errors about unusable schemas ("ajv", "@cfworker/json-schema"). */
  readonly name: string;
  /**
   * Compiles `schema`, already checked for shape, size and dialect, with that dialect's rules.
   * Must not alter the schema (it is published as given) nor fetch anything; throws a
   * SchemaError for a schema it cannot use (an invalid keyword, an unresolvable `$ref`).
   */
  compile(schema: JsonObject, dialect: SchemaDialect): SchemaCheck;
}

/** A schema that cannot be compiled: invalid, too big, unsupported dialect, unresolvable $ref. */
export class SchemaError extends Error {
  override name = "SchemaError";
}

/** The message for a `$ref` an engine found no target for: the same from every engine. */
export function unresolvedRef(ref: string): SchemaError {
  return new SchemaError(
    `JSON Schema $ref "${ref}" is not defined in the schema; remote references are never fetched`,
  );
}
