/**
 * An mcpwire HTTP endpoint protected with protectResource and JWT access tokens from a local
 * issuer: the metadata document, the 401 challenge, every way a token can be wrong, and the
 * principal that reaches the handler.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { jwtAccessTokens } from "../../src/auth/index.js";
import { json } from "../transports/http/http-helpers.js";
import { type JwtIssuer, startJwtIssuer } from "./jwt-issuer.js";
import {
  callTool,
  challengeOf,
  metadataUrlOf,
  type Protected,
  startProtected,
} from "./resource-server-fixtures.js";

describe("protected resource with JWT access tokens", () => {
  let as: JwtIssuer;
  let rs: Protected;
  before(async () => {
    as = await startJwtIssuer();
    rs = await startProtected({
      issuer: as.issuer,
      scopesSupported: ["files:read", "files:write"],
    });
  });
  after(async () => {
    await rs.close();
    await as.close();
  });

  it("serves its metadata at the path-aware well-known URL, readable from any origin", async () => {
    const response = await fetch(metadataUrlOf(rs.url), {
      headers: { Origin: "https://app.example" },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("access-control-allow-origin"), "*");
    const document = await json(response);
    assert.equal(document.resource, rs.url);
    assert.deepEqual(document.authorization_servers, [as.issuer]);
    assert.deepEqual(document.scopes_supported, ["files:read", "files:write"]);
    assert.deepEqual(document.bearer_methods_supported, ["header"]);

    const preflight = await fetch(metadataUrlOf(rs.url), {
      method: "OPTIONS",
      headers: { Origin: "https://app.example", "Access-Control-Request-Method": "GET" },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
    const root = await fetch(new URL("/.well-known/oauth-protected-resource", rs.url));
    assert.equal((await json(root)).resource, rs.url);
  });

  it("answers a request without a token with 401 naming the metadata, and no error code", async () => {
    const response = await callTool(rs.url, "whoami", undefined);
    assert.equal(response.status, 401);
    const challenge = challengeOf(response);
    assert.equal(challenge.resource_metadata, metadataUrlOf(rs.url));
    assert.equal(challenge.error, undefined);
    const basic = await callTool(rs.url, "whoami", "Basic dXNlcjpwYXNz");
    assert.equal(basic.status, 401);
  });

  it("lets a valid token in; the handler sees subject, client, scopes and expiry", async () => {
    const token = await as.mint(rs.url, {
      claims: { scope: "files:read tools", sub: "alice", client_id: "app" },
    });
    const response = await callTool(rs.url, "whoami", `Bearer ${token}`);
    assert.equal(response.status, 200);
    const body = await json(response);
    const principal = JSON.parse(body.result.content[0].text);
    assert.equal(principal.subject, "alice");
    assert.equal(principal.clientId, "app");
    assert.deepEqual(principal.scopes, ["files:read", "tools"]);
    const exp = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).exp;
    assert.equal(principal.expiresAt, exp * 1000);
  });

  it("takes the scheme name in any case", async () => {
    const token = await as.mint(rs.url);
    for (const scheme of ["bearer", "BEARER", "bEaReR"]) {
      const response = await callTool(rs.url, "whoami", `${scheme} ${token}`);
      assert.equal(response.status, 200, scheme);
    }
  });

  const refusals: [string, (as: JwtIssuer, url: string) => Promise<string>, RegExp][] = [
    ["another audience", (as) => as.mint("http://127.0.0.1:1/other"), /audience/],
    ["an expired token", (as, url) => as.mint(url, { expiresIn: -60 }), /expired/],
    [
      "a tampered payload",
      async (as, url) => {
        const [head, payload, signature] = (await as.mint(url)).split(".");
        const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
        claims.scope = "admin";
        return `${head}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`;
      },
      /signature|valid/,
    ],
    [
      "an unsigned token (alg none)",
      async (as, url) => {
        const payload = JSON.parse(
          Buffer.from((await as.mint(url)).split(".")[1]!, "base64url").toString(),
        );
        const head = Buffer.from(JSON.stringify({ alg: "none", typ: "at+jwt" })).toString(
          "base64url",
        );
        return `${head}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.`;
      },
      /valid/,
    ],
    [
      "another issuer's iss",
      (as, url) => as.mint(url, { claims: { iss: "http://127.0.0.1:1" } }),
      /iss/,
    ],
    [
      "a key the issuer never published",
      async (as, url) => as.mint(url, { key: await as.strangerKey() }),
      /signature/,
    ],
    [
      "a token that is not an access token (typ JWT)",
      (as, url) => as.mint(url, { typ: "JWT" }),
      /typ/,
    ],
    ["a token without exp", (as, url) => as.mint(url, { claims: { exp: undefined } }), /exp/],
    [
      "a token issued an hour from now (iat beyond the clock tolerance)",
      (as, url) => as.mint(url, { claims: { iat: Math.floor(Date.now() / 1000) + 3600 } }),
      /iat/,
    ],
  ];
  for (const [what, make, reason] of refusals) {
    it(`refuses ${what} with 401 invalid_token`, async () => {
      const response = await callTool(rs.url, "whoami", `Bearer ${await make(as, rs.url)}`);
      assert.equal(response.status, 401);
      const challenge = challengeOf(response);
      assert.equal(challenge.error, "invalid_token");
      assert.match(challenge.error_description ?? "", reason);
      assert.equal(challenge.resource_metadata, metadataUrlOf(rs.url));
      assert.equal(
        rs.seen.length > 0 ? rs.seen.every((p) => p.scopes.join() !== "admin") : true,
        true,
      );
    });
  }

  it("takes a token whose iat is ahead by less than the clock tolerance (5 s)", async () => {
    const iat = Math.floor(Date.now() / 1000) + 3;
    const token = await as.mint(rs.url, { claims: { iat } });
    assert.equal((await callTool(rs.url, "whoami", `Bearer ${token}`)).status, 200);
  });

  it("refuses a malformed Authorization header with 400 invalid_request", async () => {
    const response = await callTool(rs.url, "whoami", "Bearer a b");
    assert.equal(response.status, 400);
    assert.equal(challengeOf(response).error, "invalid_request");
  });

  it("refuses a token bound to a DPoP key when it comes as a bearer token", async () => {
    const token = await as.mint(rs.url, {
      claims: { cnf: { jkt: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I" } },
    });
    const response = await callTool(rs.url, "whoami", `Bearer ${token}`);
    assert.equal(response.status, 401);
    assert.match(challengeOf(response).error_description ?? "", /DPoP/);
  });

  it("guards GET and DELETE of legacy sessions too", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(rs.url, {
        method,
        headers: { "Mcp-Session-Id": "x", Accept: "text/event-stream" },
      });
      assert.equal(response.status, 401, method);
      assert.equal(challengeOf(response).resource_metadata, metadataUrlOf(rs.url));
    }
  });
});

describe("JWKS key rotation", () => {
  it("a token signed with a new key is accepted once the JWKS publishes it (fetched again for the new kid)", async () => {
    const as = await startJwtIssuer();
    const rs = await startProtected({
      issuer: as.issuer,
      verifier: jwtAccessTokens({ issuer: as.issuer, jwksCooldownMs: 0 }),
    });
    try {
      assert.equal(
        (await callTool(rs.url, "whoami", `Bearer ${await as.mint(rs.url)}`)).status,
        200,
      );
      assert.equal(as.hits.get("/jwks"), 1);
      await as.rotate();
      assert.equal(
        (await callTool(rs.url, "whoami", `Bearer ${await as.mint(rs.url)}`)).status,
        200,
      );
      assert.equal(as.hits.get("/jwks"), 2);
      assert.equal(as.hits.get("/.well-known/oauth-authorization-server"), 1);
    } finally {
      await rs.close();
      await as.close();
    }
  });
});

describe("an issuer that cannot be reached", () => {
  it("answers 503 (the token is not known to be bad) and reports the failure", async () => {
    const as = await startJwtIssuer();
    const issuer = as.issuer;
    const token = await as.mint("http://127.0.0.1:9/mcp");
    await as.close();
    const errors: Error[] = [];
    const rs = await startProtected({ issuer, onError: (error) => errors.push(error) });
    try {
      const response = await callTool(rs.url, "whoami", `Bearer ${token}`);
      assert.equal(response.status, 503);
      assert.equal(errors.length, 1);
      assert.doesNotMatch(errors[0]!.message, new RegExp(token.slice(-20)));
    } finally {
      await rs.close();
    }
  });
});
