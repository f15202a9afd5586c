/**
 * Renewing credentials: refresh before expiry and on invalid_token, single-flight so that
 * parallel requests never spend a rotating refresh token twice; step-up on insufficient_scope
 * with the union of scopes, bounded; a moved authorization server gets a new registration.
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { headlessRedirect, OAuthClient, type OAuthClientOptions } from "../../src/auth/index.js";
import { McpClient } from "../../src/client/index.js";
import {
  AuthorizationError,
  HttpClientTransport,
  HttpStatusError,
} from "../../src/transports/http/client/index.js";
import {
  type AuthServerOptions,
  type ProtectedServerOptions,
  startAuthServer,
  startProtectedServer,
} from "./oauth-fixtures.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function setUp(
  asOptions: AuthServerOptions = {},
  rsOptions: Partial<ProtectedServerOptions> = {},
) {
  const as = await startAuthServer(asOptions);
  open.push(as);
  const rs = await startProtectedServer(as, {
    authorizationServers: () => [as.issuer],
    ...rsOptions,
  });
  open.push(rs);
  return { as, rs };
}

async function connect(url: string, options: Partial<OAuthClientOptions> = {}) {
  const auth = new OAuthClient({ redirect: headlessRedirect(), ...options });
  const client = new McpClient({ clientInfo: { name: "renewal-test", version: "1.0.0" } });
  open.push(client);
  await client.connect(new HttpClientTransport(url, { auth, flavourCache: new Map() }));
  return client;
}

const parallel = (client: McpClient, count: number) =>
  Promise.all(Array.from({ length: count }, (_, i) => client.callTool("echo", { i })));

describe("OAuth client: refresh", () => {
  it("20 parallel calls on an expired token make exactly one refresh request", async () => {
    const { as, rs } = await setUp();
    let now = 1_000_000;
    const client = await connect(rs.url, { now: () => now });
    now += 2 * 3600 * 1000; // long past expiry
    const results = await parallel(client, 20);
    assert.equal(results.length, 20);
    const refreshes = as.requests.filter((r) => r.form.get("grant_type") === "refresh_token");
    assert.equal(refreshes.length, 1);
    assert.equal(refreshes[0]?.form.get("resource"), rs.url);
    assert.equal(as.requests.filter((r) => r.path === "/authorize").length, 1);
  });

  it("20 parallel calls meeting invalid_token make exactly one refresh request", async () => {
    const { as, rs } = await setUp();
    const client = await connect(rs.url);
    as.revokeAll(); // every access token issued so far is now refused with 401 invalid_token
    await parallel(client, 20);
    const refreshes = as.requests.filter((r) => r.form.get("grant_type") === "refresh_token");
    assert.equal(refreshes.length, 1);
    assert.equal(as.requests.filter((r) => r.path === "/authorize").length, 1);
  });

  it("a spent refresh token leads to a new authorization, not a loop", async () => {
    const { as, rs } = await setUp({ refreshTokens: false });
    const client = await connect(rs.url);
    as.revokeAll();
    await client.callTool("echo", {});
    assert.equal(as.requests.filter((r) => r.path === "/authorize").length, 2);
  });
});

describe("OAuth client: step-up", () => {
  it("asks for the union of the scopes asked before and the challenged ones", async () => {
    const { as, rs } = await setUp({}, { challengeScope: "read", callScopes: ["read", "write"] });
    const client = await connect(rs.url);
    await client.callTool("echo", {});
    const scopes = as.requests
      .filter((r) => r.path === "/authorize")
      .map((r) => r.query.get("scope"));
    assert.deepEqual(scopes, ["read", "read write"]);
  });

  it("gives up when the server keeps refusing scopes already asked for", async () => {
    const { as, rs } = await setUp(
      { grantable: ["read"] },
      { challengeScope: "read", callScopes: ["admin"] },
    );
    const client = await connect(rs.url);
    // Step-up once (read admin); the AS never grants admin: the retried call is refused.
    await assert.rejects(client.callTool("echo", {}), HttpStatusError);
    // Again: the union adds nothing new, so no further authorization is attempted.
    const error = await client.callTool("echo", {}).then(
      () => assert.fail("expected a failure"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof AuthorizationError, String(error));
    assert.equal(error.step, "step-up");
    assert.equal(as.requests.filter((r) => r.path === "/authorize").length, 2);
  });

  it("offline_access only when the authorization server lists it", async () => {
    const listed = await setUp(
      { scopesSupported: ["read", "offline_access"] },
      {
        challengeScope: "read",
      },
    );
    await connect(listed.rs.url);
    const unlisted = await setUp({ scopesSupported: ["read"] }, { challengeScope: "read" });
    await connect(unlisted.rs.url);
    const scopeOf = (requests: typeof listed.as.requests) =>
      requests.find((r) => r.path === "/authorize")?.query.get("scope");
    assert.equal(scopeOf(listed.as.requests), "read offline_access");
    assert.equal(scopeOf(unlisted.as.requests), "read");
  });
});

describe("OAuth client: registrations", () => {
  it("registers again, once, when the server no longer knows the registered client", async () => {
    const { as, rs } = await setUp();
    const client = await connect(rs.url);
    as.forgetRegistrations();
    as.revokeAll();
    await client.callTool("echo", {});
    assert.equal(as.requests.filter((r) => r.path === "/register").length, 2);
  });
});

describe("OAuth client: authorization server migration", () => {
  it("registers again with the new issuer and never shows it the old client id", async () => {
    const first = await startAuthServer();
    open.push(first);
    const second = await startAuthServer();
    open.push(second);
    let current = first;
    // Both ledgers count: the resource server accepts tokens from either.
    const ledger = new Map([...first.tokens]);
    const rs = await startProtectedServer(
      {
        ...first,
        tokens: {
          get: (token: string) => first.tokens.get(token) ?? second.tokens.get(token),
        } as unknown as typeof ledger,
      },
      { authorizationServers: () => [current.issuer] },
    );
    open.push(rs);
    const client = await connect(rs.url);
    const firstClientId = first.requests.find((r) => r.path === "/token")?.form.get("client_id");
    assert.ok(firstClientId);
    current = second;
    first.revokeAll();
    await client.callTool("echo", {});
    assert.ok(
      second.requests.some((r) => r.path === "/register"),
      "registered at the new AS",
    );
    const shown = second.requests.flatMap((r) => [
      r.query.get("client_id"),
      r.form.get("client_id"),
    ]);
    assert.ok(!shown.includes(firstClientId), "the old client id never reached the new AS");
    assert.ok(
      !second.requests.some((r) => r.form.get("grant_type") === "refresh_token"),
      "the old refresh token is not offered to the new AS",
    );
  });
});
