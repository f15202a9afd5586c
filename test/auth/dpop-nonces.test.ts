/**
 * The MCP server's DPoP nonces as the OAuth client keeps them (DpopNonces): the newest per
 * origin; a value that is no nonce (RFC 9449 §8.1 syntax, at most 512 characters) is ignored
 * and the last good one stays; at most 16 origins, the oldest forgotten first.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DpopNonces } from "../../src/auth/dpop.js";

const url = (origin: string) => new URL(`${origin}/mcp?x=1`);

describe("DpopNonces", () => {
  it("keeps the newest nonce per origin, whatever the path", () => {
    const nonces = new DpopNonces();
    nonces.remember(url("https://a.example"), "n-1");
    nonces.remember(new URL("https://a.example/other"), "n-2");
    nonces.remember(url("https://b.example"), "m-1");
    assert.equal(nonces.for(url("https://a.example")), "n-2");
    assert.equal(nonces.for(url("https://b.example")), "m-1");
    assert.equal(nonces.for(url("https://c.example")), undefined);
  });

  it("ignores what is not a nonce, keeping the last good one", () => {
    const nonces = new DpopNonces();
    const a = url("https://a.example");
    nonces.remember(a, "good");
    for (const bad of ["", "with space", 'quo"te', "back\\slash", "caf\u00e9", "x".repeat(513)]) {
      nonces.remember(a, bad);
      assert.equal(nonces.for(a), "good", JSON.stringify(bad.slice(0, 20)));
    }
    nonces.remember(a, "!#[]~".concat("y".repeat(507)));
    assert.equal(nonces.for(a)?.length, 512);
  });

  it("remembers 16 origins at most, forgetting the oldest", () => {
    const nonces = new DpopNonces();
    for (let i = 0; i < 17; i++) nonces.remember(url(`https://s${i}.example`), `n-${i}`);
    assert.equal(nonces.for(url("https://s0.example")), undefined);
    assert.equal(nonces.for(url("https://s1.example")), "n-1");
    assert.equal(nonces.for(url("https://s16.example")), "n-16");
  });
});
