/** WWW-Authenticate parsing: several challenges per header, quoting, token68, junk. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseWwwAuthenticate, resourceChallenge } from "../../src/auth/www-authenticate.js";

describe("WWW-Authenticate parsing", () => {
  it("reads several challenges in one header, each with its own parameters", () => {
    const parsed = parseWwwAuthenticate(
      'Basic realm="x", Bearer resource_metadata="https://s/.well-known/oauth-protected-resource/mcp", scope="a b", DPoP algs="ES256 RS256"',
    );
    assert.deepEqual(
      parsed.map((c) => [c.scheme, c.params]),
      [
        ["basic", { realm: "x" }],
        [
          "bearer",
          { resource_metadata: "https://s/.well-known/oauth-protected-resource/mcp", scope: "a b" },
        ],
        ["dpop", { algs: "ES256 RS256" }],
      ],
    );
  });

  it("handles token values, escapes, odd spacing, case and commas inside quotes", () => {
    const [challenge] = parseWwwAuthenticate(
      'BEARER  Error = invalid_token ,ERROR_DESCRIPTION="a \\"quoted\\", value",scope="x,y"',
    );
    assert.equal(challenge?.scheme, "bearer");
    assert.deepEqual(challenge?.params, {
      error: "invalid_token",
      error_description: 'a "quoted", value',
      scope: "x,y",
    });
  });

  it("reads token68 and schemes without parameters", () => {
    assert.deepEqual(parseWwwAuthenticate("Negotiate abc123==, Bearer"), [
      { scheme: "negotiate", params: {}, token68: "abc123==" },
      { scheme: "bearer", params: {} },
    ]);
  });

  it("keeps the first of a repeated parameter and survives junk", () => {
    const [challenge] = parseWwwAuthenticate('Bearer scope="a", scope="b", error="unterminated');
    assert.deepEqual(challenge?.params, { scope: "a" });
    assert.deepEqual(parseWwwAuthenticate(""), []);
    assert.deepEqual(parseWwwAuthenticate('="x"'), []);
    assert.deepEqual(parseWwwAuthenticate(`Bearer scope="${"a".repeat(20_000)}"`), []);
  });

  it("an MCP client acts on the Bearer challenge: resource_metadata, scopes, error", () => {
    const headers = new Headers();
    headers.append("WWW-Authenticate", 'Basic realm="r"');
    headers.append(
      "WWW-Authenticate",
      'Bearer error="insufficient_scope", scope="files:read  files:write files:read", resource_metadata="https://m/prm"',
    );
    assert.deepEqual(resourceChallenge(headers), {
      scheme: "bearer",
      resourceMetadata: "https://m/prm",
      scopes: ["files:read", "files:write"],
      error: "insufficient_scope",
    });
    assert.equal(resourceChallenge(new Headers({ "WWW-Authenticate": "Basic" })), undefined);
  });
});
