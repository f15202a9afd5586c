/**
 * The cfworker engine's shortcut for plain object schemas: it is taken only for schemas of
 * primitive-typed properties, and whatever it vouches for, the engine itself accepts.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { plainObjectShortcut } from "../../src/schema/plain-object-shortcut.js";

const cfworker = createRequire(import.meta.url)(
  "@cfworker/json-schema",
) as typeof import("@cfworker/json-schema");

function engineAccepts(schema: JsonObject, value: unknown): boolean {
  return cfworker.validate(value, structuredClone(schema), "2020-12").valid;
}

const ECHO: JsonObject = {
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"],
};
const MIXED: JsonObject = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  description: "every leaf type",
  properties: {
    s: { type: "string", description: "a string" },
    n: { type: "number" },
    i: { type: "integer", default: 1 },
    b: { type: "boolean" },
    z: { type: "null" },
  },
  required: ["s", "i"],
  additionalProperties: false,
};

describe("plainObjectShortcut", () => {
  it("is taken for objects of primitive-typed properties", () => {
    assert.ok(plainObjectShortcut(ECHO));
    assert.ok(plainObjectShortcut(MIXED));
    assert.ok(plainObjectShortcut({ type: "object" }));
  });

  it("is not taken when any keyword could constrain more", () => {
    const refused: JsonObject[] = [
      { type: "object", minProperties: 1 },
      { type: "object", properties: { s: { type: "string", minLength: 1 } } },
      { type: "object", properties: { s: { type: "string", format: "email" } } },
      { type: "object", properties: { s: { type: ["string", "null"] } } },
      { type: "object", properties: { o: { type: "object" } } },
      { type: "object", properties: { s: { enum: ["a"] } } },
      { type: "object", additionalProperties: { type: "string" } },
      { type: "object", $defs: { x: { type: "string" } } },
      { type: ["object"] },
      { properties: { s: { type: "string" } } },
    ];
    for (const schema of refused) assert.equal(plainObjectShortcut(schema), undefined);
  });

  it("vouches for conforming values and leaves the rest to the engine", () => {
    const check = plainObjectShortcut(MIXED)!;
    assert.equal(check({ s: "a", i: 2, n: 1.5, b: true, z: null }), true);
    assert.equal(check({ s: "a" }), false); // missing required
    assert.equal(check({ s: "a", i: 1.5 }), false); // not an integer
    assert.equal(check({ s: "a", i: 1, extra: 1 }), false); // closed
    assert.equal(check({ s: 1, i: 1 }), false);
    assert.equal(check([]), false);
    assert.equal(check(null), false);
    // An own "__proto__" key, as JSON.parse makes one, is a property like any other.
    assert.equal(check(JSON.parse('{"s":"a","i":1,"__proto__":1}')), false);
    assert.equal(plainObjectShortcut(ECHO)!(JSON.parse('{"text":"a","__proto__":1}')), true);
  });

  it("never vouches for a value the engine rejects", () => {
    const schemas = [ECHO, MIXED, { ...MIXED, additionalProperties: true }];
    fc.assert(
      fc.property(
        fc.constantFrom(...schemas),
        fc.oneof(
          fc.jsonValue(),
          fc.record(
            { s: fc.jsonValue(), i: fc.jsonValue(), text: fc.jsonValue(), z: fc.jsonValue() },
            { requiredKeys: [] },
          ),
        ),
        (schema, value) => {
          const check = plainObjectShortcut(schema)!;
          if (check(value)) assert.ok(engineAccepts(schema, value), JSON.stringify(value));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
