/**
 * The @cfworker/json-schema engine: interprets schemas instead of generating code, so it runs
 * where `new Function` is refused (Cloudflare Workers, pages under a strict CSP). The default
 * under the workerd, worker and browser export conditions; slower than ajv per call.
 *
 * What it lacks, made explicit rather than silently ignored: `$dynamicRef` (2020-12) is refused
 * at compile time, and it does not check schemas against their meta-schema, so the common
 * mistakes (an unknown type name, a non-array `required`, a pattern that is no regular
 * expression) are checked here before they could fail every call.
 */
import type { JsonObject } from "../jsonrpc/types.js";
import { type CfworkerModule, loadCfworker } from "./cfworker-module.js";
import { checkSchemaKeywords } from "./keyword-checks.js";
import { plainObjectShortcut } from "./plain-object-shortcut.js";
import {
  type SchemaDialect,
  SchemaError,
  type SchemaValidator,
  unresolvedRef,
} from "./validator.js";

const DRAFTS: Record<SchemaDialect, "2020-12" | "2019-09" | "7"> = {
  "2020-12": "2020-12",
  "2019-09": "2019-09",
  "draft-07": "7",
};

/** The interpreting engine (no code generation), the default where code from strings is banned. */
export function cfworkerValidator(): SchemaValidator {
  let cfworker: CfworkerModule | undefined;
  return {
    name: "@cfworker/json-schema",
    compile(schema, dialect) {
      cfworker ??= loadCfworker();
      // The engine records resolved URIs on the schema objects it is given: give it a copy, so
      // the published schema stays as the author wrote it.
      const copy = structuredClone(schema) as JsonObject;
      checkSchemaKeywords(copy);
      let lookup: Record<string, unknown>;
      try {
        lookup = cfworker.dereference(copy);
      } catch (error) {
        throw new SchemaError(
          `Invalid JSON Schema: ${error instanceof Error ? error.message : error}`,
        );
      }
      checkRefsResolve(copy, lookup);
      const { validate } = cfworker;
      const draft = DRAFTS[dialect];
      const certainlyValid = plainObjectShortcut(copy);
      return (value) => {
        if (certainlyValid?.(value)) return undefined;
        const result = validate(value, copy, draft, lookup as never, true);
        if (result.valid) return undefined;
        const first = firstLeaf(result.errors);
        if (first === undefined) return { instancePath: "", message: "is invalid" };
        return { instancePath: first.instanceLocation.replace(/^#/, ""), message: first.error };
      };
    },
  };
}

type OutputUnit = {
  keyword: string;
  keywordLocation: string;
  instanceLocation: string;
  error: string;
};

/**
 * The error that says what failed. The engine lists a keyword's error before those of its
 * subschemas ("Items did not match schema.", then the item's own), so the first error not
 * followed by one of its own children is the innermost of the first failure. A `false`
 * subschema's error says nothing; its parent (additionalProperties, items) names the culprit.
 */
function firstLeaf(errors: readonly OutputUnit[]): OutputUnit | undefined {
  for (let i = 0; i < errors.length; i++) {
    const error = errors[i]!;
    const next = errors[i + 1];
    if (next === undefined || next.keyword === "false") return error;
    if (!next.keywordLocation.startsWith(`${error.keywordLocation}/`)) return error;
  }
  return undefined;
}

/** Refuses a `$ref` with no target in the schema now, not at the first call that reaches it. */
function checkRefsResolve(schema: unknown, lookup: Record<string, unknown>): void {
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    const { $ref, __absolute_ref__: absolute } = node as {
      $ref?: unknown;
      __absolute_ref__?: unknown;
    };
    if (
      typeof $ref === "string" &&
      typeof absolute === "string" &&
      lookup[absolute] === undefined
    ) {
      throw unresolvedRef($ref);
    }
    for (const child of Object.values(node)) stack.push(child);
  }
}
