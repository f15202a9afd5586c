/**
 * DPoP-bound access tokens at a protected resource (RFC 9449): a token whose cnf.jkt names the
 * client's key is accepted with `Authorization: DPoP` and a fresh proof from that key for this
 * request; a replayed proof, a proof for another method, URL or token, an old proof, another
 * key's proof, or a bound token sent as a bearer token is refused.
 */
import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { json } from "../transports/http/http-helpers.js";
import { type JwtIssuer, startJwtIssuer } from "./jwt-issuer.js";
import {
  callTool,
  metadataUrlOf,
  type Protected,
  startProtected,
} from "./resource-server-fixtures.js";

interface Holder {
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];
  jwk: JWK;
  jkt: string;
}

async function holder(): Promise<Holder> {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, "sha256") };
}

interface ProofClaims {
  htm?: string;
  htu?: string;
  iat?: number;
  jti?: string;
  ath?: string;
}

function proof(
  key: Holder,
  token: string,
  claims: ProofClaims & { url: string },
  jwk = key.jwk,
): Promise<string> {
  const { url, ...rest } = claims;
  return new SignJWT({
    htm: "POST",
    htu: url,
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    ath: createHash("sha256").update(token).digest("base64url"),
    ...rest,
  })
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk })
    .sign(key.privateKey);
}

/** The challenges of a WWW-Authenticate header, by scheme. */
function challenges(response: Response): Map<string, Record<string, string>> {
  const header = response.headers.get("www-authenticate") ?? "";
  const found = new Map<string, Record<string, string>>();
  let current: Record<string, string> | undefined;
  for (const [, scheme, name, value] of header.matchAll(
    /(?:(Bearer|DPoP) )?([a-z_]+)="((?:[^"\\]|\\.)*)"/g,
  )) {
    if (scheme) {
      current = {};
      found.set(scheme, current);
    }
    current![name!] = value!;
  }
  return found;
}

let as: JwtIssuer;
let rs: Protected;
let alice: Holder;
before(async () => {
  as = await startJwtIssuer();
  rs = await startProtected({ issuer: as.issuer, dpop: true });
  alice = await holder();
});
after(async () => {
  await rs.close();
  await as.close();
});

const boundToken = (key: Holder) =>
  as.mint(rs.url, { claims: { sub: "alice", cnf: { jkt: key.jkt } } });
const withDpop = (token: string, dpop: string) =>
  callTool(rs.url, "whoami", `DPoP ${token}`, { DPoP: dpop });

describe("DPoP-bound tokens", () => {
  it("the metadata says DPoP is supported, and challenges offer both schemes", async () => {
    const document = await json(await fetch(metadataUrlOf(rs.url)));
    assert.ok(document.dpop_signing_alg_values_supported.includes("ES256"));
    assert.equal(document.dpop_bound_access_tokens_required, false);
    const found = challenges(await callTool(rs.url, "whoami", undefined));
    assert.deepEqual([...found.keys()], ["Bearer", "DPoP"]);
    assert.match(found.get("DPoP")?.algs ?? "", /ES256/);
  });

  it("accepts a bound token with a fresh proof from its key, for every request", async () => {
    const token = await boundToken(alice);
    for (let i = 0; i < 2; i++) {
      const response = await withDpop(token, await proof(alice, token, { url: rs.url }));
      assert.equal(response.status, 200);
      assert.equal(JSON.parse((await json(response)).result.content[0].text).subject, "alice");
    }
  });

  it("refuses a replayed proof", async () => {
    const token = await boundToken(alice);
    const once = await proof(alice, token, { url: rs.url });
    assert.equal((await withDpop(token, once)).status, 200);
    const again = await withDpop(token, once);
    assert.equal(again.status, 401);
    const challenge = challenges(again).get("DPoP");
    assert.equal(challenge?.error, "invalid_dpop_proof");
    assert.match(challenge?.error_description ?? "", /used before/);
  });

  const bad: [string, (token: string) => Promise<string>, RegExp][] = [
    ["for another method", (t) => proof(alice, t, { url: rs.url, htm: "GET" }), /htm/],
    ["for another URL", (t) => proof(alice, t, { url: "http://127.0.0.1:1/mcp" }), /htu/],
    ["for another token", (t) => proof(alice, `${t}x`, { url: rs.url }), /ath/],
    [
      "issued long ago",
      (t) => proof(alice, t, { url: rs.url, iat: Math.floor(Date.now() / 1000) - 600 }),
      /iat/,
    ],
    [
      "from the future",
      (t) => proof(alice, t, { url: rs.url, iat: Math.floor(Date.now() / 1000) + 600 }),
      /iat/,
    ],
    ["signed by another key", async (t) => proof(await holder(), t, { url: rs.url }), /key/],
    [
      "naming a key it was not signed with",
      async (t) => proof(await holder(), t, { url: rs.url }, alice.jwk),
      /verify/,
    ],
  ];
  for (const [what, make, reason] of bad) {
    it(`refuses a proof ${what}`, async () => {
      const token = await boundToken(alice);
      const response = await withDpop(token, await make(token));
      assert.equal(response.status, 401);
      const challenge = challenges(response).get("DPoP");
      assert.equal(challenge?.error, "invalid_dpop_proof");
      assert.match(challenge?.error_description ?? "", reason);
    });
  }

  it("refuses a request without a proof, or with two", async () => {
    const token = await boundToken(alice);
    const none = await callTool(rs.url, "whoami", `DPoP ${token}`);
    assert.equal(none.status, 401);
    const one = await proof(alice, token, { url: rs.url });
    const two = await withDpop(token, `${one}, ${await proof(alice, token, { url: rs.url })}`);
    assert.equal(two.status, 401);
  });

  it("refuses a bound token sent as a bearer token, and an unbound token sent with DPoP", async () => {
    const token = await boundToken(alice);
    assert.equal((await callTool(rs.url, "whoami", `Bearer ${token}`)).status, 401);
    const unbound = await as.mint(rs.url);
    const response = await withDpop(unbound, await proof(alice, unbound, { url: rs.url }));
    assert.equal(response.status, 401);
    assert.match(challenges(response).get("DPoP")?.error_description ?? "", /not bound/);
    // Still fine as a bearer token.
    assert.equal((await callTool(rs.url, "whoami", `Bearer ${unbound}`)).status, 200);
  });
});

describe("DPoP required", () => {
  it("refuses bearer tokens and challenges with DPoP only", async () => {
    const strict = await startProtected({ issuer: as.issuer, dpop: { required: true } });
    try {
      const response = await callTool(strict.url, "whoami", `Bearer ${await as.mint(strict.url)}`);
      assert.equal(response.status, 401);
      assert.deepEqual([...challenges(response).keys()], ["DPoP"]);
      const document = await json(await fetch(metadataUrlOf(strict.url)));
      assert.equal(document.dpop_bound_access_tokens_required, true);
      const token = await as.mint(strict.url, { claims: { cnf: { jkt: alice.jkt } } });
      const ok = await callTool(strict.url, "whoami", `DPoP ${token}`, {
        DPoP: await proof(alice, token, { url: strict.url }),
      });
      assert.equal(ok.status, 200);
    } finally {
      await strict.close();
    }
  });
});

describe("DPoP off", () => {
  it("treats the DPoP scheme as unknown", async () => {
    const plain = await startProtected({ issuer: as.issuer });
    try {
      const token = await as.mint(plain.url, { claims: { cnf: { jkt: alice.jkt } } });
      const response = await callTool(plain.url, "whoami", `DPoP ${token}`, {
        DPoP: await proof(alice, token, { url: plain.url }),
      });
      assert.equal(response.status, 401);
      assert.deepEqual([...challenges(response).keys()], ["Bearer"]);
    } finally {
      await plain.close();
    }
  });
});

describe("DPoP from a browser", () => {
  it("a CORS preflight may ask to send the DPoP header", async () => {
    const browserFacing = await startProtected({ issuer: as.issuer, dpop: true }, { cors: true });
    try {
      const origin = new URL(browserFacing.url).origin;
      const preflight = await fetch(browserFacing.url, {
        method: "OPTIONS",
        headers: {
          Origin: origin,
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "authorization, dpop, content-type",
        },
      });
      assert.equal(preflight.status, 204);
      assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /\bDPoP\b/);
    } finally {
      await browserFacing.close();
    }
  });
});
