/**
 * Scope hierarchies (2026-07-28 authorization: servers MUST account for them): a token granted
 * a broader scope passes the checks of the narrower scopes it implies, with either built-in
 * verifier (JWT from a local issuer, introspection at it), declared as a table or a function;
 * without a hierarchy matching stays exact. And a resource never advertises `offline_access`.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { protectResource, tokenIntrospection } from "../../src/auth/index.js";
import { json } from "../transports/http/http-helpers.js";
import { type JwtIssuer, startJwtIssuer } from "./jwt-issuer.js";
import { callTool, metadataUrlOf, startProtected } from "./resource-server-fixtures.js";

let as: JwtIssuer;
before(async () => {
  as = await startJwtIssuer();
});
after(() => as.close());

const FILES = { files: ["files:read", "files:write"], admin: ["files"] };

/** The scopes the handler saw, or the refusal's status. */
async function whoami(url: string, token: string): Promise<string[] | number> {
  const response = await callTool(url, "whoami", `Bearer ${token}`);
  if (response.status !== 200) return response.status;
  return JSON.parse((await json(response)).result.content[0].text).scopes;
}

describe("scope hierarchy with JWT access tokens", () => {
  it("a broader scope passes for the narrower ones it implies, transitively; not the other way", async () => {
    const rs = await startProtected({ issuer: as.issuer, scopeHierarchy: FILES });
    try {
      const files = await as.mint(rs.url, { claims: { scope: "files" } });
      assert.equal((await callTool(rs.url, "write_file", `Bearer ${files}`)).status, 200);
      assert.deepEqual(await whoami(rs.url, files), ["files", "files:read", "files:write"]);
      const admin = await as.mint(rs.url, { claims: { scope: "admin" } });
      assert.equal((await callTool(rs.url, "write_file", `Bearer ${admin}`)).status, 200);
      const read = await as.mint(rs.url, { claims: { scope: "files:read" } });
      assert.equal((await callTool(rs.url, "write_file", `Bearer ${read}`)).status, 403);
    } finally {
      await rs.close();
    }
  });

  it("without a hierarchy matching is exact", async () => {
    const rs = await startProtected({ issuer: as.issuer });
    try {
      const files = await as.mint(rs.url, { claims: { scope: "files" } });
      assert.equal((await callTool(rs.url, "write_file", `Bearer ${files}`)).status, 403);
    } finally {
      await rs.close();
    }
  });

  it("scope names such as constructor or __proto__ are only names", async () => {
    const rs = await startProtected({ issuer: as.issuer, scopeHierarchy: FILES });
    try {
      const odd = await as.mint(rs.url, { claims: { scope: "constructor __proto__ toString" } });
      assert.deepEqual(await whoami(rs.url, odd), ["constructor", "__proto__", "toString"]);
    } finally {
      await rs.close();
    }
  });

  it("a function that implies without end is cut off: 503, reported", async () => {
    const reported: string[] = [];
    const rs = await startProtected({
      issuer: as.issuer,
      scopeHierarchy: (scope) => [`${scope}+`],
      onError: (error) => reported.push(error.message),
    });
    try {
      const token = await as.mint(rs.url, { claims: { scope: "a" } });
      assert.equal(await whoami(rs.url, token), 503);
      assert.match(reported[0] ?? "", /implies over 1000 scopes/);
    } finally {
      await rs.close();
    }
  });
});

describe("scope hierarchy with introspection", () => {
  it("the verifier's own hierarchy (a function) widens the answer's scopes", async () => {
    const rs = await startProtected({
      issuer: as.issuer,
      verifier: tokenIntrospection({
        issuer: as.issuer,
        clientId: as.introspectionClient.id,
        clientSecret: as.introspectionClient.secret,
        scopeHierarchy: (scope) => (scope === "files" ? ["files:read", "files:write"] : []),
      }),
    });
    try {
      const exp = Math.floor(Date.now() / 1000) + 300;
      as.introspection.set("opaque-files", { active: true, aud: rs.url, scope: "files", exp });
      as.introspection.set("opaque-read", { active: true, aud: rs.url, scope: "files:read", exp });
      assert.equal((await callTool(rs.url, "write_file", "Bearer opaque-files")).status, 200);
      assert.equal((await callTool(rs.url, "write_file", "Bearer opaque-read")).status, 403);
    } finally {
      await rs.close();
    }
  });

  it("protectResource's hierarchy applies to any verifier's answer", async () => {
    const rs = await startProtected({
      issuer: as.issuer,
      scopeHierarchy: FILES,
      verifier: tokenIntrospection({
        issuer: as.issuer,
        clientId: as.introspectionClient.id,
        clientSecret: as.introspectionClient.secret,
      }),
    });
    try {
      const exp = Math.floor(Date.now() / 1000) + 300;
      as.introspection.set("opaque-admin", { active: true, aud: rs.url, scope: "admin", exp });
      assert.equal((await callTool(rs.url, "write_file", "Bearer opaque-admin")).status, 200);
    } finally {
      await rs.close();
    }
  });
});

describe("offline_access", () => {
  it("is never advertised in the resource metadata's scopes_supported", async () => {
    const rs = await startProtected({
      issuer: as.issuer,
      scopesSupported: ["files:read", "offline_access", "files:write"],
    });
    try {
      const document = await json(await fetch(metadataUrlOf(rs.url)));
      assert.deepEqual(document.scopes_supported, ["files:read", "files:write"]);
    } finally {
      await rs.close();
    }
  });

  it("cannot be required (it would be named in the challenge)", () => {
    assert.throws(
      () => protectResource({ issuer: as.issuer, requiredScopes: ["offline_access"] }),
      /offline_access/,
    );
    assert.throws(
      () =>
        protectResource({ issuer: as.issuer, methodScopes: { "tools/call": ["offline_access"] } }),
      /offline_access/,
    );
  });
});
