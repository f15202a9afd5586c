/**
 * Opaque tokens checked by RFC 7662 introspection at the local issuer, and the verified-token
 * cache in front of every verifier: one check per token until it expires (or the verifier's
 * limit passes), bounded in size.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type TokenVerifier,
  tokenIntrospection,
  type VerifiedToken,
} from "../../src/auth/index.js";
import { json } from "../transports/http/http-helpers.js";
import { type JwtIssuer, startJwtIssuer } from "./jwt-issuer.js";
import {
  callTool,
  challengeOf,
  type Protected,
  startProtected,
} from "./resource-server-fixtures.js";

describe("introspection verifier", () => {
  let as: JwtIssuer;
  let rs: Protected;
  before(async () => {
    as = await startJwtIssuer();
    rs = await startProtected({
      issuer: as.issuer,
      verifier: tokenIntrospection({
        issuer: as.issuer,
        clientId: as.introspectionClient.id,
        clientSecret: as.introspectionClient.secret,
      }),
    });
  });
  after(async () => {
    await rs.close();
    await as.close();
  });

  const exp = () => Math.floor(Date.now() / 1000) + 300;
  function soon(seconds: number): number {
    return Math.floor(Date.now() / 1000) + seconds;
  }

  it("an active token for this resource gets in, with its subject, client and scopes", async () => {
    as.introspection.set("opaque-good", {
      active: true,
      iss: as.issuer,
      aud: rs.url,
      sub: "bob",
      client_id: "cli",
      scope: "a b",
      exp: exp(),
    });
    const response = await callTool(rs.url, "whoami", "Bearer opaque-good");
    assert.equal(response.status, 200);
    const principal = JSON.parse((await json(response)).result.content[0].text);
    assert.equal(principal.subject, "bob");
    assert.equal(principal.clientId, "cli");
    assert.deepEqual(principal.scopes, ["a", "b"]);
  });

  const refused: [string, Record<string, unknown>, RegExp][] = [
    ["an inactive token", { active: false }, /not active/],
    ["a token for another audience", { active: true, aud: "http://127.0.0.1:1/mcp" }, /audience/],
    ["a token naming no audience", { active: true }, /audience/],
    ["a token from another issuer", { active: true, aud: "@", iss: "http://127.0.0.1:1" }, /iss/],
    ["an expired token", { active: true, aud: "@", exp: 1_000 }, /expired/],
    [
      "an answer whose exp is a string",
      { active: true, aud: "@", exp: "9999999999" },
      /exp is not a number/,
    ],
    [
      "an answer whose nbf is not a number",
      { active: true, aud: "@", nbf: [1] },
      /nbf is not a number/,
    ],
    ["a token not valid for an hour yet (nbf)", { active: true, aud: "@", nbf: soon(3600) }, /nbf/],
    ["a token issued an hour from now (iat)", { active: true, aud: "@", iat: soon(3600) }, /iat/],
  ];
  for (const [what, answer, reason] of refused) {
    it(`refuses ${what} with 401 invalid_token`, async () => {
      const token = `opaque-${what.replace(/\W+/g, "-")}`;
      as.introspection.set(token, {
        ...answer,
        ...(answer.aud === "@" ? { aud: rs.url } : {}),
      } as never);
      const response = await callTool(rs.url, "whoami", `Bearer ${token}`);
      assert.equal(response.status, 401);
      assert.equal(challengeOf(response).error, "invalid_token");
      assert.match(challengeOf(response).error_description ?? "", reason);
    });
  }

  it("an unknown token is inactive", async () => {
    assert.equal((await callTool(rs.url, "whoami", "Bearer never-issued")).status, 401);
  });

  it("asks again on every request about a token whose answer has no exp (maxCacheMs not set)", async () => {
    as.introspection.set("opaque-no-exp", { active: true, aud: rs.url, sub: "d" });
    const before = as.hits.get("/introspect") ?? 0;
    for (let i = 0; i < 2; i++)
      assert.equal((await callTool(rs.url, "whoami", "Bearer opaque-no-exp")).status, 200);
    assert.equal(as.hits.get("/introspect"), before + 2);
  });

  it("introspects a token once while its answer is fresh", async () => {
    as.introspection.set("opaque-once", { active: true, aud: rs.url, sub: "c", exp: exp() });
    const before = as.hits.get("/introspect") ?? 0;
    for (let i = 0; i < 3; i++)
      assert.equal((await callTool(rs.url, "whoami", "Bearer opaque-once")).status, 200);
    assert.equal(as.hits.get("/introspect"), before + 1);
  });
});

describe("how long an introspection answer is trusted", () => {
  let as: JwtIssuer;
  before(async () => {
    as = await startJwtIssuer();
  });
  after(() => as.close());

  const protectedBy = (maxCacheMs?: number) =>
    startProtected({
      issuer: as.issuer,
      verifier: tokenIntrospection({
        issuer: as.issuer,
        clientId: as.introspectionClient.id,
        clientSecret: as.introspectionClient.secret,
        ...(maxCacheMs === undefined ? {} : { maxCacheMs }),
      }),
    });

  it("a revoked token is refused once maxCacheMs has passed", async () => {
    const rs = await protectedBy(300);
    try {
      const exp = Math.floor(Date.now() / 1000) + 3600;
      as.introspection.set("revoked-later", { active: true, aud: rs.url, sub: "e", exp });
      assert.equal((await callTool(rs.url, "whoami", "Bearer revoked-later")).status, 200);
      as.introspection.set("revoked-later", { active: false });
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal((await callTool(rs.url, "whoami", "Bearer revoked-later")).status, 401);
    } finally {
      await rs.close();
    }
  });

  it("an answer is never trusted past the token's exp, however long maxCacheMs is", async () => {
    const rs = await protectedBy(600_000);
    try {
      const exp = Math.floor(Date.now() / 1000) + 2;
      as.introspection.set("short-lived", { active: true, aud: rs.url, sub: "f", exp });
      const before = as.hits.get("/introspect") ?? 0;
      assert.equal((await callTool(rs.url, "whoami", "Bearer short-lived")).status, 200);
      await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 50));
      assert.equal((await callTool(rs.url, "whoami", "Bearer short-lived")).status, 401);
      assert.equal(as.hits.get("/introspect"), before + 2);
    } finally {
      await rs.close();
    }
  });

  it("an answer without exp is remembered when maxCacheMs is set", async () => {
    const rs = await protectedBy(600_000);
    try {
      as.introspection.set("no-exp-cached", { active: true, aud: rs.url, sub: "g" });
      const before = as.hits.get("/introspect") ?? 0;
      for (let i = 0; i < 2; i++)
        assert.equal((await callTool(rs.url, "whoami", "Bearer no-exp-cached")).status, 200);
      assert.equal(as.hits.get("/introspect"), before + 1);
    } finally {
      await rs.close();
    }
  });
});

/** A verifier that counts its calls and says what the test wants. */
function countingVerifier(
  answer: () => Partial<VerifiedToken>,
): TokenVerifier & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async verify(token) {
      calls.push(token);
      return { issuer: "http://127.0.0.1:1", subject: token, scopes: [], claims: {}, ...answer() };
    },
  };
}

describe("the verified-token cache", () => {
  it("asks the verifier once per token while the token is valid, again once it has expired", async () => {
    let lifetime = 300;
    const verifier = countingVerifier(() => ({ exp: Date.now() / 1000 + lifetime }));
    const rs = await startProtected({ issuer: "http://127.0.0.1:1", verifier });
    try {
      for (let i = 0; i < 3; i++)
        assert.equal((await callTool(rs.url, "whoami", "Bearer one")).status, 200);
      assert.deepEqual(verifier.calls, ["one"]);
      lifetime = 0.05;
      assert.equal((await callTool(rs.url, "whoami", "Bearer short")).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 80));
      assert.equal((await callTool(rs.url, "whoami", "Bearer short")).status, 200);
      assert.deepEqual(verifier.calls, ["one", "short", "short"]);
    } finally {
      await rs.close();
    }
  });

  it("checks parallel first uses of one token once", async () => {
    const verifier = countingVerifier(() => ({ exp: Date.now() / 1000 + 300 }));
    const rs = await startProtected({ issuer: "http://127.0.0.1:1", verifier });
    try {
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => callTool(rs.url, "whoami", "Bearer same")),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        Array(8).fill(200),
      );
      assert.deepEqual(verifier.calls, ["same"]);
    } finally {
      await rs.close();
    }
  });

  it("keeps at most maxCachedTokens, forgetting the oldest", async () => {
    const verifier = countingVerifier(() => ({ exp: Date.now() / 1000 + 300 }));
    const rs = await startProtected({ issuer: "http://127.0.0.1:1", verifier, maxCachedTokens: 2 });
    try {
      for (const token of ["t1", "t2", "t3", "t3", "t2", "t1"]) {
        assert.equal((await callTool(rs.url, "whoami", `Bearer ${token}`)).status, 200);
      }
      // t1 was forgotten when t3 came in; t2 and t3 were still remembered.
      assert.deepEqual(verifier.calls, ["t1", "t2", "t3", "t1"]);
    } finally {
      await rs.close();
    }
  });

  it("tells apart remembered tokens that end alike, each keeping its own principal", async () => {
    const verifier = countingVerifier(() => ({ exp: Date.now() / 1000 + 300 }));
    const rs = await startProtected({ issuer: "http://127.0.0.1:1", verifier });
    // The cache looks tokens up by their last characters first: these three share them.
    const suffix = ".same-tail-for-every-token";
    const tokens = ["a", "b", "c"].map((prefix) => `${prefix}${suffix}`);
    const order = [0, 1, 2, 0, 1, 2, 0, 2, 1].map((i) => tokens[i]!);
    try {
      for (const token of order) {
        assert.equal((await callTool(rs.url, "whoami", `Bearer ${token}`)).status, 200);
      }
      assert.deepEqual(verifier.calls, tokens);
      assert.deepEqual(
        rs.seen.map((principal) => principal.subject),
        order,
      );
      // A token that differs only before the shared tail is checked, not taken for another.
      assert.equal((await callTool(rs.url, "whoami", `Bearer d${suffix}`)).status, 200);
      assert.deepEqual(verifier.calls, [...tokens, `d${suffix}`]);
    } finally {
      await rs.close();
    }
  });

  it("does not cache a token without expiry when the verifier sets no limit", async () => {
    const verifier = countingVerifier(() => ({}));
    const rs = await startProtected({ issuer: "http://127.0.0.1:1", verifier });
    try {
      for (let i = 0; i < 2; i++)
        assert.equal((await callTool(rs.url, "whoami", "Bearer forever")).status, 200);
      assert.deepEqual(verifier.calls, ["forever", "forever"]);
    } finally {
      await rs.close();
    }
  });
});
