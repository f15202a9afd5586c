import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import {
  DEFAULT_MAX_SCHEMA_DEPTH,
  type JsonSchema,
  SchemaError,
  SchemaValidator,
  type ValidationResult,
} from "../../src/server/schema-validator.js";

const validator = new SchemaValidator();

function failure(result: ValidationResult): string {
  assert.equal(result.ok, false, "expected the value to be rejected");
  return result.ok ? assert.fail() : result.message;
}

function ok(result: ValidationResult): void {
  assert.deepEqual(result, { ok: true });
}

describe("SchemaValidator: JSON Schema 2020-12 (default dialect)", () => {
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
    assert.equal(
      failure(validator.check(schema, { point: [1, "2"] })),
      "arguments/point/1: must be number",
    );
    assert.match(
      failure(validator.check(schema, { point: [1, 2, 3] })),
      /^arguments\/point: must NOT have more than 2 items/,
    );
    assert.equal(
      failure(validator.check(schema, { unit: "mi" })),
      'arguments/unit: must be equal to one of the allowed values: ["m","km"]',
    );
    assert.match(
      failure(validator.check(schema, { card: "4111" })),
      /^arguments: must have property expiry when property card is present/,
    );
  });

  it("applies unevaluatedProperties across allOf", () => {
    const schema = {
      allOf: [{ properties: { a: { type: "string" } } }],
      properties: { b: { type: "integer" } },
      unevaluatedProperties: false,
    };
    ok(validator.check(schema, { a: "x", b: 1 }));
    assert.equal(
      failure(validator.check(schema, { a: "x", c: 1 })),
      "arguments: must NOT have unevaluated properties ('c')",
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
    ok(validator.check(strictTree, { data: 1, children: [{ data: 2, children: [] }] }));
    assert.equal(
      failure(validator.check(strictTree, { children: [{ daat: 2 }] })),
      "arguments/children/0: must NOT have unevaluated properties ('daat')",
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
    assert.equal(failure(validator.check(schema, { a: 1 })), "arguments/a: must be string");
    assert.equal(failure(validator.check(schema, { b: "2" })), "arguments/b: must be number");
  });
});

describe("SchemaValidator: other dialects via $schema", () => {
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
      assert.equal(
        failure(validator.check(schema, { pair: [1, 1] })),
        "arguments/pair/0: must be string",
      );
      assert.match(
        failure(validator.check(schema, { pair: ["a", 1, 2] })),
        /^arguments\/pair: must NOT have more than 2 items/,
      );
      assert.equal(failure(validator.check(schema, { ref: 0 })), "arguments/ref: must be > 0");
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
    assert.equal(
      failure(validator.check(schema, { next: { v: 1, next: { v: "x", next: {} } } })),
      "arguments/next/next/v: must be integer",
    );
    assert.match(failure(validator.check(schema, { v: 1 })), /when property v is present/);
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

describe("SchemaValidator: formats and tolerated keywords", () => {
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
    assert.equal(
      failure(validator.check(schema, { email: "nope" })),
      'arguments/email: must match format "email"',
    );
    assert.equal(
      failure(validator.check(schema, { site: "not a uri" })),
      'arguments/site: must match format "uri"',
    );
    assert.equal(
      failure(validator.check(schema, { at: "2025-02-30T10:00:00Z" })),
      'arguments/at: must match format "date-time"',
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
    assert.equal(
      failure(validator.check(schema, {})),
      "arguments: must have required property 'region'",
    );
  });
});

describe("SchemaValidator: caching and integrity", () => {
  it("compiles a schema object once and returns the same function", () => {
    const local = new SchemaValidator();
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
          /^Invalid JSON Schema: schema is invalid/.test(error.message)
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
    const local = new SchemaValidator();
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

describe("SchemaValidator: bounded cost", () => {
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
        error instanceof SchemaError && error.message === "JSON Schema nests deeper than 64 levels",
    );
    assert.throws(() => validator.compile(nested(100_000)), /nests deeper than 64 levels/);
    assert.throws(
      () => new SchemaValidator({ maxDepth: 4 }).compile(nested(2)),
      /deeper than 4 levels/,
    );
  });

  it("rejects cyclic, oversized and subtree-sharing schemas before compiling", () => {
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic.properties = { self: cyclic };
    assert.throws(() => validator.compile(cyclic), /nests deeper than/);

    const big = { enum: Array.from({ length: 120_000 }, (_, i) => `value-${i}`) };
    assert.throws(() => validator.compile(big), /larger than 1000000 bytes/);
    assert.throws(
      () => new SchemaValidator({ maxSchemaBytes: 100 }).compile(nested(5)),
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

  it("uses a supplied regex engine for pattern", () => {
    const patterns: string[] = [];
    const regExp = Object.assign(
      (pattern: string, flags: string) => {
        patterns.push(pattern);
        return new RegExp(pattern, flags);
      },
      { code: "new RegExp" },
    );
    const local = new SchemaValidator({ regExp });
    const schema = { type: "string", pattern: "^a+$" };
    ok(local.check(schema, "aaa"));
    assert.equal(failure(local.check(schema, "b")), 'arguments: must match pattern "^a+$"');
    assert.ok(patterns.includes("^a+$"), "the schema's pattern went through the engine");
  });
});

describe("SchemaValidator: messages and edge schemas", () => {
  it("names the root as configured and shows additional property names", () => {
    const local = new SchemaValidator({ rootName: "structuredContent" });
    const schema = { type: "object", properties: { a: { const: 1 } }, additionalProperties: false };
    assert.equal(failure(local.check(schema, [])), "structuredContent: must be object");
    assert.equal(
      failure(local.check(schema, { b: 1 })),
      "structuredContent: must NOT have additional properties ('b')",
    );
    assert.equal(
      failure(local.check(schema, { a: 2 })),
      "structuredContent/a: must be equal to constant: 1",
    );
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
