/**
 * A protected resource's configuration is checked when it is built: a clear error for a missing
 * issuer, a resource or issuer that is not a URL, a resource with a fragment, or an
 * authorization server reached over plain http off loopback.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jwtAccessTokens, protectResource, tokenIntrospection } from "../../src/auth/index.js";

describe("protected resource configuration", () => {
  it("needs an issuer (or authorization servers and a verifier)", () => {
    assert.throws(() => protectResource({}), /name the issuer/);
    assert.throws(
      () => protectResource({ authorizationServers: ["https://as.example"] }),
      /issuer is required/,
    );
  });

  it("refuses a resource that is not an absolute URL, or has a fragment", () => {
    const issuer = "https://as.example";
    assert.throws(
      () => protectResource({ issuer, resource: "/mcp" }),
      /resource must be an absolute URL/,
    );
    assert.throws(
      () => protectResource({ issuer, resource: "https://mcp.example/mcp#x" }),
      /fragment/,
    );
  });

  it("refuses authorization servers over plain http off loopback, and non-URLs", () => {
    assert.throws(() => protectResource({ issuer: "http://as.example" }), /must be https/);
    assert.throws(() => protectResource({ issuer: "as.example" }), /absolute URL/);
    assert.throws(() => jwtAccessTokens({ issuer: "http://as.example" }), /issuer must be https/);
    assert.throws(
      () => jwtAccessTokens({ issuer: "https://as.example", jwksUri: "http://keys.example/jwks" }),
      /jwksUri must be https/,
    );
    assert.throws(
      () => tokenIntrospection({ issuer: "http://as.example", clientId: "a", clientSecret: "b" }),
      /issuer must be https/,
    );
    // Loopback over http is fine (local development, tests).
    assert.ok(
      protectResource({ issuer: "http://127.0.0.1:9", resource: "http://localhost:3000/mcp" }),
    );
  });
});
