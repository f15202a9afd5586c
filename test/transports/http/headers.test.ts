/**
 * Value encoding of the MCP request headers (the spec's examples), strict sentinel decoding,
 * and the `x-mcp-header` annotation scan.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  paramHeadersFor,
  scanHeaderAnnotations,
} from "../../../src/protocol/header-annotations.js";
import {
  decodeHeaderValue,
  encodeHeaderValue,
  paramHeaderValue,
} from "../../../src/protocol/http-headers.js";

describe("header value encoding", () => {
  it("follows the spec's examples", () => {
    assert.equal(encodeHeaderValue("us-west1"), "us-west1");
    assert.equal(encodeHeaderValue("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
    assert.equal(encodeHeaderValue(" padded "), "=?base64?IHBhZGRlZCA=?=");
    assert.equal(encodeHeaderValue("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
    assert.equal(encodeHeaderValue("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
  });

  it("converts argument types", () => {
    assert.equal(paramHeaderValue(42), "42");
    assert.equal(paramHeaderValue(-7), "-7");
    assert.equal(paramHeaderValue(true), "true");
    assert.equal(paramHeaderValue(false), "false");
    assert.equal(paramHeaderValue(null), undefined);
    assert.equal(paramHeaderValue({ a: 1 }), undefined);
  });

  it("decodes what it encodes, for any string", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        const decoded = decodeHeaderValue(encodeHeaderValue(text));
        assert.deepEqual(decoded, { ok: true, value: text });
      }),
      { numRuns: 300 },
    );
  });

  it("refuses malformed sentinels and raw non-ASCII; incomplete sentinels are literal", () => {
    for (const bad of [
      "=?base64?SGVsbG8?=", // missing padding
      "=?base64?SGVsbG8===?=", // too much padding
      "=?base64?SGV sbG8=?=", // a space inside
      "=?base64?SGVsb-8=?=", // base64url alphabet
      "=?base64?/w==?=", // not UTF-8
      "caf\u00e9", // obs-text as a header parser would hand it over
    ]) {
      assert.equal(decodeHeaderValue(bad).ok, false, bad);
    }
    assert.deepEqual(decodeHeaderValue("=?base64?SGVsbG8="), {
      ok: true,
      value: "=?base64?SGVsbG8=",
    });
    assert.deepEqual(decodeHeaderValue("SGVsbG8=?="), { ok: true, value: "SGVsbG8=?=" });
    assert.deepEqual(decodeHeaderValue("=?base64??="), { ok: true, value: "" });
    assert.deepEqual(decodeHeaderValue("  spaced\t"), { ok: true, value: "spaced" });
  });
});

describe("x-mcp-header annotations", () => {
  it("collects annotations on properties chains, nested included", () => {
    const schema = {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        query: { type: "string" },
        place: {
          type: "object",
          properties: { zone: { type: "integer", "x-mcp-header": "Zone" } },
        },
      },
    };
    const scan = scanHeaderAnnotations(schema);
    assert.equal(scan.invalid, undefined);
    assert.deepEqual(
      scan.annotations.map((annotation) => [annotation.name, annotation.path]),
      [
        ["Region", ["region"]],
        ["Zone", ["place", "zone"]],
      ],
    );
    assert.deepEqual(
      paramHeadersFor(schema, { region: "Hello, 世界", query: "q", place: { zone: 3 } }),
      { "Mcp-Param-Region": "=?base64?SGVsbG8sIOS4lueVjA==?=", "Mcp-Param-Zone": "3" },
    );
    assert.deepEqual(paramHeadersFor(schema, { region: null }), {});
  });

  it("marks invalid annotations", () => {
    const invalid = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      scanHeaderAnnotations({ type: "object", properties, ...extra }).invalid;
    assert.match(invalid({ a: { type: "string", "x-mcp-header": "" } }) ?? "", /non-empty/);
    assert.match(invalid({ a: { type: "string", "x-mcp-header": "Has Space" } }) ?? "", /token/);
    assert.match(invalid({ a: { type: "string", "x-mcp-header": "a:b" } }) ?? "", /token/);
    assert.match(invalid({ a: { type: "object", "x-mcp-header": "A" } }) ?? "", /string, integer/);
    assert.match(invalid({ a: { type: "number", "x-mcp-header": "A" } }) ?? "", /string, integer/);
    assert.match(
      invalid({
        a: { type: "string", "x-mcp-header": "Dup" },
        b: { type: "string", "x-mcp-header": "DUP" },
      }) ?? "",
      /duplicates/,
    );
    assert.match(
      invalid({
        list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } },
      }) ?? "",
      /only allowed/,
    );
    assert.match(
      invalid({}, { anyOf: [{ properties: { a: { type: "string", "x-mcp-header": "A" } } }] }) ??
        "",
      /only allowed/,
    );
  });
});
