/** The discovery URL orders and the PRM resource check, case by case. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  authorizationServerMetadataUrls,
  resourceIdentifies,
  resourceMetadataUrls,
} from "../../src/auth/discovery.js";
import { isLoopbackUrl } from "../../src/transports/http/client/auth.js";

const hrefs = (urls: URL[]) => urls.map((u) => u.href);

describe("discovery URLs", () => {
  it("PRM: the hint alone, else path-aware then root; root only for a root endpoint", () => {
    const endpoint = new URL("https://m.example.com/public/mcp/");
    assert.deepEqual(hrefs(resourceMetadataUrls(endpoint, "https://m.example.com/x.json")), [
      "https://m.example.com/x.json",
    ]);
    assert.deepEqual(hrefs(resourceMetadataUrls(endpoint, undefined)), [
      "https://m.example.com/.well-known/oauth-protected-resource/public/mcp",
      "https://m.example.com/.well-known/oauth-protected-resource",
    ]);
    assert.deepEqual(hrefs(resourceMetadataUrls(new URL("https://m.example.com/"), undefined)), [
      "https://m.example.com/.well-known/oauth-protected-resource",
    ]);
  });

  it("AS metadata: RFC 8414 then OpenID, path inserted, then OpenID appended", () => {
    assert.deepEqual(hrefs(authorizationServerMetadataUrls(new URL("https://a.example/t1"))), [
      "https://a.example/.well-known/oauth-authorization-server/t1",
      "https://a.example/.well-known/openid-configuration/t1",
      "https://a.example/t1/.well-known/openid-configuration",
    ]);
    assert.deepEqual(hrefs(authorizationServerMetadataUrls(new URL("https://a.example"))), [
      "https://a.example/.well-known/oauth-authorization-server",
      "https://a.example/.well-known/openid-configuration",
    ]);
  });
});

describe("a PRM resource identifies the server", () => {
  const endpoint = new URL("https://m.example.com/api/mcp");
  for (const [resource, expected] of [
    ["https://m.example.com/api/mcp", true],
    ["https://m.example.com/api/mcp/", true],
    ["https://M.EXAMPLE.com/api/mcp", true],
    ["https://m.example.com:443/api/mcp", true],
    ["https://m.example.com", true],
    ["https://m.example.com/api", true],
    ["https://m.example.com/ap", false],
    ["https://m.example.com/api/mcp/other", false],
    ["http://m.example.com/api/mcp", false],
    ["https://m.example.com:8443/api/mcp", false],
    ["https://evil.example.com/api/mcp", false],
    ["https://m.example.com/api/mcp#frag", false],
    ["not a url", false],
  ] as const) {
    it(`${resource} → ${expected}`, () => {
      assert.equal(resourceIdentifies(resource, endpoint), expected);
    });
  }
});

describe("loopback", () => {
  it("127.0.0.0/8, ::1 and localhost are loopback; nothing else is", () => {
    for (const yes of [
      "http://127.0.0.1:1/",
      "http://127.9.8.7/",
      "http://[::1]:8/",
      "http://localhost/",
    ]) {
      assert.ok(isLoopbackUrl(new URL(yes)), yes);
    }
    for (const no of [
      "http://10.0.0.1/",
      "http://localhost.example.com/",
      "http://127.0.0.1.nip.io/",
      "http://[::2]/",
    ]) {
      assert.ok(!isLoopbackUrl(new URL(no)), no);
    }
  });
});
