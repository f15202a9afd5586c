/**
 * The web build's bytes (plain JavaScript) and hashing (@noble/hashes) against Node's own:
 * SHA-256, HMAC-SHA256, base64, base64url and UTF-8 lengths agree with node:crypto and Buffer on
 * arbitrary input, and only canonical base64url decodes.
 */
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  base64,
  base64url,
  concatBytes,
  fromBase64,
  fromBase64url,
  timingSafeEqual,
} from "../../src/platform/bytes.js";
import { hmacSha256, sha256 } from "../../src/platform/digest.web.js";
import { utf8Length } from "../../src/platform/utf8-length.web.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe("platform bytes (web build) against node:crypto and Buffer", () => {
  it("SHA-256 matches node:crypto, across block boundaries", () => {
    assert.equal(hex(sha256(new Uint8Array())), createHash("sha256").digest("hex"));
    for (const length of [55, 56, 63, 64, 65, 119, 120, 1000]) {
      const data = Uint8Array.from({ length }, (_, i) => (i * 31) & 0xff);
      assert.equal(hex(sha256(data)), createHash("sha256").update(data).digest("hex"), `${length}`);
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (data) => {
        assert.equal(hex(sha256(data)), createHash("sha256").update(data).digest("hex"));
      }),
    );
  });

  it("HMAC-SHA256 matches node:crypto for short and long keys", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 150 }),
        fc.uint8Array({ maxLength: 200 }),
        (key, data) => {
          assert.equal(
            hex(hmacSha256(key, data)),
            createHmac("sha256", key).update(data).digest("hex"),
          );
        },
      ),
    );
  });

  it("base64 and base64url match Buffer and decode back", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (data) => {
        const buffer = Buffer.from(data);
        assert.equal(base64(data), buffer.toString("base64"));
        assert.equal(base64url(data), buffer.toString("base64url"));
        assert.deepEqual(fromBase64(base64(data)), new Uint8Array(data));
        assert.deepEqual(fromBase64url(base64url(data)), new Uint8Array(data));
      }),
    );
  });

  it("refuses base64url that is not the canonical spelling", () => {
    for (const bad of ["a", "ab=", "a+b/", "ab c", "AB", "AAB"]) {
      assert.equal(fromBase64url(bad), undefined, bad);
    }
    assert.equal(fromBase64("!!"), undefined);
  });

  it("counts UTF-8 bytes as Buffer does, surrogate pairs and lone halves included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 50 }), (text) => {
        assert.equal(utf8Length(text), Buffer.byteLength(text, "utf8"));
      }),
    );
    assert.equal(utf8Length("\ud800"), Buffer.byteLength("\ud800", "utf8"));
    for (const text of ["", '{"id":1}', "ascii\x7f", "caf\u00e9", "\x80"]) {
      assert.equal(utf8Length(text), Buffer.byteLength(text, "utf8"), JSON.stringify(text));
    }
  });

  it("compares in full and joins chunks", () => {
    assert.equal(timingSafeEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 2)), true);
    assert.equal(timingSafeEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 3)), false);
    assert.equal(timingSafeEqual(Uint8Array.of(1), Uint8Array.of(1, 2)), false);
    assert.deepEqual(
      concatBytes([Uint8Array.of(1), Uint8Array.of(2, 3)], 3),
      Uint8Array.of(1, 2, 3),
    );
  });
});
