/**
 * Resource identifiers compared after RFC 3986 normalisation (a token for `http://host:port/`
 * is one for `http://host:port`, what mcp-remote asks for when a server names its origin), and
 * the resource of the HTTP+SSE paths beside an endpoint's.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { tokenIntrospection } from "../../src/auth/index.js";
import { normalResourceId } from "../../src/auth/resource-server/resource-id.js";
import { siblingResource } from "../../src/auth/resource-server/resource-metadata.js";
import { type JwtIssuer, startJwtIssuer } from "./jwt-issuer.js";
import {
  callTool,
  challengeOf,
  type Protected,
  startProtected,
} from "./resource-server-fixtures.js";

describe("normalResourceId", () => {
  it("makes equal what RFC 3986 §6.2.2-6.2.3 says is equal", () => {
    const same: [string, string][] = [
      ["http://127.0.0.1:8080", "http://127.0.0.1:8080/"],
      ["HTTPS://MCP.Example.COM/mcp", "https://mcp.example.com/mcp"],
      ["https://mcp.example.com:443/mcp", "https://mcp.example.com/mcp"],
      ["http://mcp.example.com:80", "http://mcp.example.com/"],
      ["https://mcp.example.com/a/./b/../mcp", "https://mcp.example.com/a/mcp"],
      ["https://mcp.example.com/%7euser/mcp", "https://mcp.example.com/~user/mcp"],
      ["https://mcp.example.com/a%2fb", "https://mcp.example.com/a%2Fb"],
    ];
    for (const [a, b] of same) assert.equal(normalResourceId(a), normalResourceId(b), `${a} ${b}`);
  });

  it("keeps apart what is not the same resource", () => {
    const different: [string, string][] = [
      ["https://mcp.example.com/mcp", "https://mcp.example.com/mcp/"],
      ["https://mcp.example.com", "http://mcp.example.com"],
      ["https://mcp.example.com", "https://mcp.example.com:8443"],
      ["https://mcp.example.com/a%2Fb", "https://mcp.example.com/a/b"],
      ["https://mcp.example.com/MCP", "https://mcp.example.com/mcp"],
    ];
    for (const [a, b] of different) {
      assert.notEqual(normalResourceId(a), normalResourceId(b), `${a} ${b}`);
    }
    assert.equal(normalResourceId("not a url"), undefined);
  });
});

describe("a token's audience at a protected endpoint", () => {
  let as: JwtIssuer;
  let origin: Protected;
  let path: Protected;
  let introspected: Protected;
  before(async () => {
    as = await startJwtIssuer();
    origin = await startProtected({ issuer: as.issuer, resource: "https://mcp.example.com" });
    path = await startProtected({ issuer: as.issuer, resource: "https://mcp.example.com/~me/mcp" });
    introspected = await startProtected({
      issuer: as.issuer,
      resource: "https://mcp.example.com",
      verifier: tokenIntrospection({
        issuer: as.issuer,
        clientId: as.introspectionClient.id,
        clientSecret: as.introspectionClient.secret,
      }),
    });
  });
  after(async () => {
    await Promise.all([origin.close(), path.close(), introspected.close()]);
    await as.close();
  });

  const status = async (rs: Protected, audience: string | string[]) => {
    const token = await as.mint("", { claims: { aud: audience } });
    return (await callTool(rs.url, "whoami", `Bearer ${token}`)).status;
  };

  it("takes the origin with a trailing slash, other spellings of it, and it among others", async () => {
    assert.equal(await status(origin, "https://mcp.example.com/"), 200);
    assert.equal(await status(origin, "HTTPS://Mcp.Example.com:443"), 200);
    assert.equal(await status(origin, ["https://other.example", "https://mcp.example.com/"]), 200);
  });

  it("refuses another path, port or scheme", async () => {
    for (const audience of [
      "https://mcp.example.com/mcp",
      "https://mcp.example.com:8443/",
      "http://mcp.example.com/",
    ]) {
      const token = await as.mint("", { claims: { aud: audience } });
      const refused = await callTool(origin.url, "whoami", `Bearer ${token}`);
      assert.equal(refused.status, 401, audience);
      assert.equal(challengeOf(refused).error, "invalid_token");
    }
  });

  it("compares a path's percent-encodings, and keeps its trailing slash significant", async () => {
    assert.equal(await status(path, "https://mcp.example.com/%7eme/mcp"), 200);
    assert.equal(await status(path, "https://mcp.example.com/~me/mcp/"), 401);
  });

  it("compares an introspected token's audience the same way", async () => {
    const exp = Math.floor(Date.now() / 1000) + 300;
    for (const [token, aud, expected] of [
      ["opaque-slash", "https://mcp.example.com/", 200],
      ["opaque-elsewhere", "https://mcp.example.com/mcp", 401],
    ] as const) {
      as.introspection.set(token, { active: true, iss: as.issuer, aud, sub: "s", exp });
      assert.equal(
        (await callTool(introspected.url, "whoami", `Bearer ${token}`)).status,
        expected,
      );
    }
  });
});

describe("siblingResource: the resource of /sse beside an endpoint's", () => {
  it("is the path beside the endpoint's, behind a proxy's prefix too", () => {
    assert.equal(
      siblingResource("http://127.0.0.1:3000/mcp", "/mcp", "/sse"),
      "http://127.0.0.1:3000/sse",
    );
    assert.equal(
      siblingResource("https://example.com/gw/mcp", "/mcp", "/sse"),
      "https://example.com/gw/sse",
    );
    assert.equal(
      siblingResource("https://example.com/api/mcp", "/api/mcp", "/sse"),
      "https://example.com/sse",
    );
    // The served path unknown: the resource's last segment is taken for the endpoint.
    assert.equal(
      siblingResource("https://example.com/gw/mcp/", undefined, "/sse"),
      "https://example.com/gw/sse",
    );
  });

  it("is the endpoint's own when that covers it the way clients check (the origin, a prefix)", () => {
    assert.equal(siblingResource("https://example.com", "/mcp", "/sse"), undefined);
    assert.equal(siblingResource("https://example.com/", undefined, "/sse"), undefined);
    assert.equal(siblingResource("https://example.com/gw/", "/", "/sse"), undefined);
  });
});
