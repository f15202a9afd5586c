/**
 * The JSON Schema engines behind tool validation, ajv (code generation) and
 * @cfworker/json-schema (interpreted, for runtimes without `new Function`), through
 * CompiledSchemas: both run every test here. Messages are each engine's own words after the
 * same "root/path: " prefix; ajv's exact wording is checked too.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { ajvValidator } from "../../src/schema/ajv.js";
import { cfworkerValidator } from "../../src/schema/cfworker.js";
import {
  CompiledSchemas,
  type CompiledSchemasOptions,
  DEFAULT_MAX_SCHEMA_DEPTH,
  type JsonSchema,
  type ValidationResult,
} from "../../src/schema/compiled-schemas.js";
import { SchemaError, type SchemaValidator } from "../../src/schema/validator.js";

const ENGINES: ReadonlyArray<readonly [string, () => SchemaValidator]> = [
  ["ajv", () => ajvValidator()],
  ["@cfworker/json-schema", () => cfworkerValidator()],
];

function ok(result: ValidationResult): void {
  assert.deepEqual(result, { ok: true });
}

for (const [engine, makeEngine] of ENGINES) {
  const isAjv = engine === "ajv";
  const schemas = (options?: CompiledSchemasOptions) => new CompiledSchemas(makeEngine, options);
  const validator = schemas();

  function failure(result: ValidationResult): string {
    assert.equal(result.ok, false, "expected the value to be rejected");
    return result.ok ? assert.fail() : result.message;
  }

  /** Rejected at `path` (root name and instance path); with ajv, with exactly `ajvMessage`. */
  function failsAt(result: ValidationResult, path: string, ajvMessage?: string | RegExp): void {
    const message = failure(result);
    assert.ok(message.startsWith(`${path}: `), `${message} should start with "${path}: "`);
    if (!isAjv || ajvMessage === undefined) return;
    const text = message.slice(path.length + 2);
    if (typeof ajvMessage === "string") assert.equal(text, ajvMessage);
    else assert.match(text, ajvMessage);
  }

  describe(`${engine}: JSON Schema 2020-12 (default dialect)`, () => {
    it("validates prefixItems, $defs and dependentRequired", () => {
      const schema = {
        type: "object",
        properties: {
          point: {
            type: "array",
            prefixItems: [{ type: "number" }, { type: "number" }],
            items: false,
          },
          unit: { $ref: "#/$defs/unit" },
          card: { type: "string" },
          expiry: { type: "string" },
        },
        dependentRequired: { card: ["expiry"] },
        $defs: { unit: { enum: ["m", "km"] } },
      };
      ok(validator.check(schema, { point: [1, 2], unit: "km" }));
      failsAt(validator.check(schema, { point: [1, "2"] }), "arguments/point/1", "must be number");
      failsAt(
        validator.check(schema, { point: [1, 2, 3] }),
        "arguments/point",
        /^must NOT have more than 2 items/,
      );
      failsAt(
        validator.check(schema, { unit: "mi" }),
        "arguments/unit",
        'must be equal to one of the allowed values: ["m","km"]',
      );
      failsAt(
        validator.check(schema, { card: "4111" }),
        "arguments",
        /^must have property expiry when property card is present/,
      );
    });

    it("applies unevaluatedProperties across allOf", () => {
      const schema = {
        allOf: [{ properties: { a: { type: "string" } } }],
        properties: { b: { type: "integer" } },
        unevaluatedProperties: false,
      };
      ok(validator.check(schema, { a: "x", b: 1 }));
      failsAt(
        validator.check(schema, { a: "x", c: 1 }),
        "arguments",
        "must NOT have unevaluated properties ('c')",
      );
    });

    it("follows $dynamicRef into an extending schema", () => {
      // RFC example: a strict tree extends a generic tree through the "node" dynamic anchor.
      const strictTree = {
        $id: "https://example.com/strict-tree",
        $dynamicAnchor: "node",
        $ref: "tree",
        unevaluatedProperties: false,
        $defs: {
          tree: {
            $id: "https://example.com/tree",
            $dynamicAnchor: "node",
            type: "object",
            properties: {
              data: true,
              children: { type: "array", items: { $dynamicRef: "#node" } },
            },
          },
        },
      };
      if (!isAjv) {
        // cfworker has no $dynamicRef: refused when compiled rather than silently not applied.
        assert.throws(
          () => validator.compile(strictTree),
          (error: unknown) =>
            error instanceof SchemaError &&
            /\$dynamicRef \(at #\/\$defs\/tree\/properties\/children\/items\) is not supported by @cfworker\/json-schema; use ajvValidator\(\)/.test(
              error.message,
            ),
        );
        return;
      }
      ok(validator.check(strictTree, { data: 1, children: [{ data: 2, children: [] }] }));
      failsAt(
        validator.check(strictTree, { children: [{ daat: 2 }] }),
        "arguments/children/0",
        "must NOT have unevaluated properties ('daat')",
      );
    });

    it("resolves $anchor and absolute self references without the network", () => {
      const schema = {
        $id: "https://example.com/root.json",
        type: "object",
        properties: { a: { $ref: "#name" }, b: { $ref: "https://example.com/root.json#/$defs/n" } },
        $defs: { name: { $anchor: "name", type: "string" }, n: { type: "number" } },
      };
      ok(validator.check(schema, { a: "x", b: 2 }));
      failsAt(validator.check(schema, { a: 1 }), "arguments/a", "must be string");
      failsAt(validator.check(schema, { b: "2" }), "arguments/b", "must be number");
    });
  });

  describe(`${engine}: other dialects via $schema`, () => {
    const draft7Tuple = (uri: string) => ({
      $schema: uri,
      type: "object",
      properties: {
        pair: {
          type: "array",
          items: [{ type: "string" }, { type: "number" }],
          additionalItems: false,
        },
        ref: { $ref: "#/definitions/positive" },
      },
      definitions: { positive: { type: "number", exclusiveMinimum: 0 } },
    });

    it("uses draft-07 semantics for the array form of items and definitions", () => {
      for (const uri of [
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-07/schema",
        "https://json-schema.org/draft-07/schema#",
      ]) {
        const schema = draft7Tuple(uri);
        ok(validator.check(schema, { pair: ["a", 1], ref: 3 }));
        failsAt(validator.check(schema, { pair: [1, 1] }), "arguments/pair/0", "must be string");
        failsAt(
          validator.check(schema, { pair: ["a", 1, 2] }),
          "arguments/pair",
          /^must NOT have more than 2 items/,
        );
        failsAt(validator.check(schema, { ref: 0 }), "arguments/ref", "must be > 0");
      }
    });

    it("compiles 2019-09 schemas with 2019-09 keywords", () => {
      const schema = {
        $schema: "https://json-schema.org/draft/2019-09/schema",
        $recursiveAnchor: true,
        type: "object",
        properties: { next: { $recursiveRef: "#" }, v: { type: "integer" } },
        dependentRequired: { v: ["next"] },
      };
      ok(validator.check(schema, { v: 1, next: { next: {} } }));
      failsAt(
        validator.check(schema, { next: { v: 1, next: { v: "x", next: {} } } }),
        "arguments/next/next/v",
        "must be integer",
      );
      failsAt(validator.check(schema, { v: 1 }), "arguments", /when property v is present/);
    });

    it("rejects an unknown or malformed $schema at compile time", () => {
      assert.throws(
        () =>
          validator.compile({ $schema: "http://json-schema.org/draft-04/schema#", type: "string" }),
        (error: unknown) =>
          error instanceof SchemaError &&
          error.message ===
            'Unsupported JSON Schema dialect "http://json-schema.org/draft-04/schema#": use 2020-12 (default), 2019-09 or draft-07',
      );
      assert.throws(() => validator.compile({ $schema: 7 }), /\$schema must be a string/);
    });
  });

  describe(`${engine}: formats and tolerated keywords`, () => {
    it("checks email, uri and date-time formats", () => {
      const schema = {
        type: "object",
        properties: {
          email: { type: "string", format: "email" },
          site: { type: "string", format: "uri" },
          at: { type: "string", format: "date-time" },
        },
      };
      ok(
        validator.check(schema, {
          email: "a@example.com",
          site: "https://x.org/a?b",
          at: "2025-06-18T10:00:00Z",
        }),
      );
      failsAt(
        validator.check(schema, { email: "nope" }),
        "arguments/email",
        'must match format "email"',
      );
      failsAt(
        validator.check(schema, { site: "not a uri" }),
        "arguments/site",
        'must match format "uri"',
      );
      failsAt(
        validator.check(schema, { at: "2025-02-30T10:00:00Z" }),
        "arguments/at",
        'must match format "date-time"',
      );
    });

    it("ignores x-mcp-header, other unknown keywords and unknown formats", () => {
      const schema = {
        type: "object",
        "x-mcp-header": "Mcp-Param-Region",
        properties: {
          region: { type: "string", "x-mcp-header": "Region", frobnicate: { deep: [1] } },
          code: { type: "string", format: "made-up-format" },
        },
        required: ["region"],
        unknownKeyword: true,
      };
      ok(validator.check(schema, { region: "eu", code: "anything" }));
      failsAt(validator.check(schema, {}), "arguments", "must have required property 'region'");
    });
  });

  describe(`${engine}: caching and integrity`, () => {
    it("compiles a schema object once and returns the same function", () => {
      const local = schemas();
      const schema = { type: "object", properties: { n: { type: "integer" } } };
      const first = local.compile(schema);
      assert.equal(local.compile(schema), first);
      assert.notEqual(local.compile({ ...schema }), first, "a different object compiles anew");
      const broken = { type: "strin" };
      let firstError: unknown;
      assert.throws(
        () => local.compile(broken),
        (error) => {
          firstError = error;
          return (
            error instanceof SchemaError &&
            (isAjv
              ? /^Invalid JSON Schema: schema is invalid/
              : /^Invalid JSON Schema: #\/type: "strin" is not a JSON type$/
            ).test(error.message)
          );
        },
      );
      assert.throws(
        () => local.compile(broken),
        (error) => error === firstError,
      );
    });

    it("never mutates the published schema", () => {
      const schema = {
        $id: "https://example.com/tool.json",
        $schema: "http://json-schema.org/draft-07/schema",
        type: "object",
        properties: { n: { type: "integer", default: 5 }, o: { $ref: "#/definitions/o" } },
        definitions: { o: { type: "object", properties: { d: { default: "x" } } } },
      };
      const snapshot = structuredClone(schema);
      const compiled = validator.compile(schema);
      assert.deepStrictEqual(schema, snapshot);
      const value = { o: {} };
      ok(compiled(value));
      assert.deepStrictEqual(value, { o: {} }, "defaults are not applied to the data");
      failure(compiled({ n: "x" }));
      assert.deepStrictEqual(schema, snapshot);
    });

    it("lets different schemas share an $id", () => {
      const a = { $id: "urn:example:tool", type: "string" };
      const b = { $id: "urn:example:tool", type: "number" };
      ok(validator.check(a, "x"));
      ok(validator.check(b, 1));
      failure(validator.check(a, 1));
    });

    it("rejects remote $refs without making a request", async () => {
      let requests = 0;
      const server = createServer((_request, response) => {
        requests++;
        response.setHeader("content-type", "application/json");
        response.end('{"type":"string"}');
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/schema.json`;
        assert.throws(
          () => validator.compile({ type: "object", properties: { a: { $ref: url } } }),
          (error: unknown) =>
            error instanceof SchemaError &&
            error.message ===
              `JSON Schema $ref "${url}" is not defined in the schema; remote references are never fetched`,
        );
        assert.throws(
          () => validator.compile({ $ref: "other.json#/x" }),
          /"other\.json#\/x" is not defined in the schema/,
        );
        // Our own request arrives after anything the compile could have started.
        await fetch(url).then((response) => response.text());
        assert.equal(requests, 1);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it("does not resolve a $ref into an embedded resource of an earlier schema", () => {
      const local = schemas();
      const first = { $defs: { tree: { $id: "https://example.com/shared-tree", type: "object" } } };
      ok(local.check(first, {}));
      assert.throws(
        () => local.compile({ $ref: "https://example.com/shared-tree" }),
        /is not defined in the schema/,
      );
    });

    it("refuses $async schemas, whose result would be a promise", () => {
      assert.throws(
        () => validator.compile({ $async: true, type: "string" }),
        /\$async schemas are not supported/,
      );
    });
  });

  describe(`${engine}: bounded cost`, () => {
    function nested(depth: number): Record<string, unknown> {
      let schema: Record<string, unknown> = { type: "string" };
      for (let i = 0; i < depth; i++) schema = { type: "object", properties: { x: schema } };
      return schema;
    }

    it("rejects schemas nested deeper than the limit with a clear error", () => {
      // Each level adds two JSON levels: the subschema and its "properties" object.
      ok(validator.check(nested(DEFAULT_MAX_SCHEMA_DEPTH / 2 - 1), {}));
      assert.throws(
        () => validator.compile(nested(DEFAULT_MAX_SCHEMA_DEPTH / 2)),
        (error: unknown) =>
          error instanceof SchemaError &&
          error.message === "JSON Schema nests deeper than 64 levels",
      );
      assert.throws(() => validator.compile(nested(100_000)), /nests deeper than 64 levels/);
      assert.throws(() => schemas({ maxDepth: 4 }).compile(nested(2)), /deeper than 4 levels/);
    });

    it("rejects cyclic, oversized and subtree-sharing schemas before compiling", () => {
      const cyclic: Record<string, unknown> = { type: "object" };
      cyclic.properties = { self: cyclic };
      assert.throws(() => validator.compile(cyclic), /nests deeper than/);

      const big = { enum: Array.from({ length: 120_000 }, (_, i) => `value-${i}`) };
      assert.throws(() => validator.compile(big), /larger than 1000000 bytes/);
      assert.throws(
        () => schemas({ maxSchemaBytes: 100 }).compile(nested(5)),
        /larger than 100 bytes/,
      );

      // 30 levels that each reference the next twice: tiny in memory, 2^30 nodes when walked.
      let shared: Record<string, unknown> = { type: "string" };
      for (let i = 0; i < 30; i++) shared = { anyOf: [shared, shared] };
      assert.throws(() => validator.compile(shared), /larger than 1000000 bytes/);
    });

    it("reports data too deep for a recursive schema instead of overflowing the stack", () => {
      const schema = {
        $ref: "#/$defs/list",
        $defs: { list: { type: "array", items: { $ref: "#/$defs/list" } } },
      };
      ok(validator.check(schema, [[[]]]));
      let deep: unknown[] = [];
      for (let i = 0; i < 200_000; i++) deep = [deep];
      assert.equal(
        failure(validator.check(schema, deep)),
        "arguments: is nested too deeply to validate",
      );
    });

    it("does not let Object.prototype satisfy required properties", () => {
      failure(validator.check({ type: "object", required: ["constructor"] }, {}));
      ok(
        validator.check(
          { type: "object", required: ["constructor"] },
          JSON.parse('{"constructor":1}'),
        ),
      );
    });
  });

  describe(`${engine}: messages and edge schemas`, () => {
    it("names the root as configured and shows additional property names", () => {
      const local = schemas({ rootName: "structuredContent" });
      const schema = {
        type: "object",
        properties: { a: { const: 1 } },
        additionalProperties: false,
      };
      failsAt(local.check(schema, []), "structuredContent", "must be object");
      failsAt(
        local.check(schema, { b: 1 }),
        "structuredContent",
        "must NOT have additional properties ('b')",
      );
      failsAt(local.check(schema, { a: 2 }), "structuredContent/a", "must be equal to constant: 1");
    });

    it("accepts boolean schemas and refuses non-schemas", () => {
      ok(validator.check(true, { anything: 1 }));
      assert.equal(failure(validator.check(false, 1)), "arguments: not allowed");
      for (const bad of [null, [], "string", 3]) {
        assert.throws(
          () => validator.compile(bad as unknown as JsonSchema),
          /must be an object or a boolean/,
        );
      }
    });
  });
}

describe("engine-specific checks", () => {
  it("uses a supplied regex engine for pattern", () => {
    const patterns: string[] = [];
    const regExp = Object.assign(
      (pattern: string, flags: string) => {
        patterns.push(pattern);
        return new RegExp(pattern, flags);
      },
      { code: "new RegExp" },
    );
    const local = new CompiledSchemas(() => ajvValidator({ regExp }));
    const schema = { type: "string", pattern: "^a+$" };
    ok(local.check(schema, "aaa"));
    assert.deepEqual(local.check(schema, "b"), {
      ok: false,
      message: 'arguments: must match pattern "^a+$"',
    });
    assert.ok(patterns.includes("^a+$"), "the schema's pattern went through the engine");
  });

  it("cfworker refuses shapes ajv's meta-schema would, before any call", () => {
    const local = new CompiledSchemas(() => cfworkerValidator());
    const refused: Array<[object, RegExp]> = [
      [{ type: "object", required: "a" }, /#\/required: must be an array of strings/],
      [
        { properties: { a: { pattern: "(" } } },
        /#\/properties\/a\/pattern: "\(" is not a regular expression/,
      ],
      [
        { patternProperties: { "[": {} } },
        /#\/patternProperties: "\[" is not a regular expression/,
      ],
      [{ anyOf: {} }, /#\/anyOf: must be an array of schemas/],
      [{ items: [1] }, /#\/items\/0: a subschema must be an object or a boolean/],
      [{ maxLength: "3" }, /#\/maxLength: must be a number/],
      [{ enum: "a" }, /#\/enum: must be an array/],
      [{ $async: true }, /\$async schemas are not supported/],
    ];
    for (const [schema, message] of refused) {
      assert.throws(
        () => local.compile(schema),
        (error: unknown) => error instanceof SchemaError && message.test(error.message),
        JSON.stringify(schema),
      );
    }
    // A format named like an Object.prototype member is an unknown format: ignored, as by ajv.
    ok(local.check({ type: "string", format: "constructor" }, "x"));
    ok(local.check({ type: "string", format: "hasOwnProperty" }, "x"));
  });

  it("cfworker leaves no marks on the published schema", () => {
    const schema = {
      $id: "https://example.com/t",
      properties: { a: { $ref: "#/$defs/a" } },
      $defs: { a: {} },
    };
    new CompiledSchemas(() => cfworkerValidator()).compile(schema);
    assert.deepEqual(Object.getOwnPropertyNames(schema), ["$id", "properties", "$defs"]);
    assert.deepEqual(Object.getOwnPropertyNames(schema.properties.a), ["$ref"]);
  });
});
