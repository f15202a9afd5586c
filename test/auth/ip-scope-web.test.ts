/**
 * The web build's address checks (ip-scope.web.ts, no node:net) give node:net's answers: which
 * strings are IP addresses, and which addresses are public, on random and boundary addresses
 * in both families, IPv4-mapped and NAT64 forms included.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import * as node from "../../src/auth/ip-scope.js";
import * as web from "../../src/auth/ip-scope.web.js";
import { NOT_PUBLIC_V4, NOT_PUBLIC_V6 } from "../../src/auth/special-ranges.js";

function same(address: string): void {
  assert.equal(web.isIP(address), node.isIP(address), `isIP(${address})`);
  assert.equal(
    web.isPublicAddress(address),
    node.isPublicAddress(address),
    `isPublicAddress(${address})`,
  );
}

/** The address as a URL host writes it (node:net's checks see what fetch would connect to). */
function canonicalV6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

const v4 = fc
  .tuple(...[0, 1, 2, 3].map(() => fc.integer({ min: 0, max: 255 })))
  .map((parts) => parts.join("."));
const v6 = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })
  .map((groups) => canonicalV6(groups.map((g) => g.toString(16)).join(":")));

describe("ip-scope.web.ts against node:net", () => {
  it("agrees on random IPv4 and IPv6 addresses", () => {
    fc.assert(
      fc.property(v4, (address) => same(address)),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(v6, (address) => same(address)),
      { numRuns: 2000 },
    );
  });

  it("agrees on every range's edges, inside and out", () => {
    for (const [network, prefix] of NOT_PUBLIC_V4) {
      const base = network.split(".").reduce((n, part) => n * 256 + Number(part), 0);
      const size = 2 ** (32 - prefix);
      for (const n of [base - 1, base, base + size - 1, base + size]) {
        if (n < 0 || n > 0xffffffff) continue;
        same([24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join("."));
      }
    }
    for (const [network] of NOT_PUBLIC_V6) same(network);
    for (const address of ["fbff::1", "fc00::1", "fdff::1", "fe00::1", "febf::1", "fec0::1"]) {
      same(address);
    }
  });

  it("judges NAT64 addresses written short or dotted by the IPv4 address inside", () => {
    // 64:ff9b:: is 0.0.0.0 and 64:ff9b::1 is 0.0.0.1: node's check once missed the short forms
    // (a random run found 0.0.0.0).
    for (const address of ["64:ff9b::", "64:ff9b::1", "64:ff9b::a00:1", "64:ff9b::10.0.0.1"]) {
      same(address);
      assert.equal(node.isPublicAddress(address), false, address);
    }
    assert.equal(node.isPublicAddress("64:ff9b::808:808"), true);
  });

  it("judges IPv4-mapped and NAT64 addresses by the IPv4 address inside", () => {
    fc.assert(
      fc.property(v4, (address) => {
        same(canonicalV6(`::ffff:${address}`));
        same(canonicalV6(`64:ff9b::${address}`));
      }),
    );
  });

  it("refuses what is not an address", () => {
    for (const text of [
      "",
      "1.2.3",
      "1.2.3.4.5",
      "01.2.3.4",
      "256.1.1.1",
      "::1::",
      "1:2:3:4:5:6:7:8:9",
      "g::1",
      "example.com",
      "1.2.3.4::",
    ]) {
      same(text);
    }
  });
});
