/**
 * The OAuth client against a local authorization server and protected MCP server: discovery in
 * the spec's order, PKCE S256 with `resource` on both requests, refusals (foreign PRM resource,
 * issuer mismatch, plain http off loopback) and the token endpoint authentication methods.
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import {
  firstIssuer,
  headlessRedirect,
  OAuthClient,
  type OAuthClientOptions,
} from "../../src/auth/index.js";
import { McpClient } from "../../src/client/index.js";
import { AuthorizationError, HttpClientTransport } from "../../src/transports/http/client/index.js";
import {
  type AuthServer,
  type AuthServerOptions,
  type ProtectedServer,
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
): Promise<{ as: AuthServer; rs: ProtectedServer }> {
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
  const client = new McpClient({ clientInfo: { name: "oauth-test", version: "1.0.0" } });
  open.push(client);
  await client.connect(new HttpClientTransport(url, { auth, flavourCache: new Map() }));
  return client;
}

/** The AuthorizationError somewhere in an error's cause chain. */
function authorizationErrorIn(error: unknown): AuthorizationError | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof AuthorizationError) return current;
  }
  return undefined;
}

async function rejectsAt(promise: Promise<unknown>, step: string): Promise<AuthorizationError> {
  const error = await promise.then(
    () => assert.fail("expected an authorization failure"),
    (e: unknown) => e,
  );
  const found = authorizationErrorIn(error);
  assert.ok(found, `not an AuthorizationError: ${String(error)}`);
  assert.equal(found.step, step, found.message);
  return found;
}

describe("OAuth client: authorization code flow", () => {
  it("PKCE S256, resource on authorize and token requests, DCR as a native app, bearer on every request", async () => {
    const { as, rs } = await setUp();
    const client = await connect(rs.url);
    const outcome = await client.callTool("echo", { a: 1 });
    assert.equal((outcome.content[0] as { text: string }).text, '{"a":1}');

    const register = as.requests.find((r) => r.path === "/register");
    assert.equal(register?.json?.application_type, "native");
    assert.deepEqual(register?.json?.grant_types, ["authorization_code", "refresh_token"]);
    const authorize = as.requests.find((r) => r.path === "/authorize");
    assert.ok(authorize);
    assert.equal(authorize.query.get("code_challenge_method"), "S256");
    assert.match(authorize.query.get("code_challenge") ?? "", /^[A-Za-z0-9_-]{43}$/);
    assert.equal(authorize.query.get("resource"), rs.url);
    assert.equal(authorize.query.get("scope"), null, "no scope when nobody names one");
    const token = as.requests.find((r) => r.path === "/token");
    assert.equal(token?.form.get("resource"), rs.url);
    assert.ok(token?.form.get("code_verifier"));

    const mcp = rs.requests.filter((r) => r.path === "/mcp");
    assert.equal(mcp[0]?.headers.authorization, undefined, "the first request has no token yet");
    for (const later of mcp.slice(1))
      assert.match(later.headers.authorization ?? "", /^Bearer at-/);
  });

  it("finds the PRM at the path-aware well-known URL, then the root, without a hint", async () => {
    const { rs } = await setUp(
      {},
      { hintMetadata: false, prmPath: "/.well-known/oauth-protected-resource" },
    );
    await connect(rs.url);
    const wellKnown = rs.requests
      .filter((r) => r.path.startsWith("/.well-known/"))
      .map((r) => r.path);
    assert.deepEqual(wellKnown, [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]);
  });

  it("uses the challenge's resource_metadata URL first, and only it", async () => {
    const { rs } = await setUp({}, { prmPath: "/custom/prm.json" });
    await connect(rs.url);
    const fetched = rs.requests.filter((r) => r.method === "GET").map((r) => r.path);
    assert.deepEqual(fetched, ["/custom/prm.json"]);
  });

  it("tries the AS metadata URLs of a path issuer in the spec's order", async () => {
    const { as, rs } = await setUp({
      issuerPath: "/tenant1",
      metadataPaths: ["/tenant1/.well-known/openid-configuration"],
    });
    await connect(rs.url);
    const tried = as.requests.filter((r) => r.method === "GET" && r.path.includes("well-known"));
    assert.deepEqual(
      tried.map((r) => r.path),
      [
        "/.well-known/oauth-authorization-server/tenant1",
        "/.well-known/openid-configuration/tenant1",
        "/tenant1/.well-known/openid-configuration",
      ],
    );
  });

  it("refuses a PRM whose resource is another server, before asking any AS", async () => {
    const { as, rs } = await setUp({}, { resource: "https://evil.example.com/mcp" });
    const error = await rejectsAt(connect(rs.url), "discovery");
    assert.match(
      error.message,
      /another resource: it names https:\/\/evil\.example\.com\/mcp, and this server is http:\/\/127\.0\.0\.1:\d+\/mcp$/,
    );
    assert.equal(as.requests.length, 0);
  });

  it("refuses AS metadata whose issuer differs even by a trailing slash", async () => {
    const as = await startAuthServer();
    open.push(as);
    const trap = await startAuthServer({ metadataIssuer: `${as.issuer}/` });
    open.push(trap);
    const rs = await startProtectedServer(trap, { authorizationServers: () => [trap.issuer] });
    open.push(rs);
    await rejectsAt(connect(rs.url), "discovery");
    assert.deepEqual(
      trap.requests.map((r) => r.path),
      ["/.well-known/oauth-authorization-server"],
      "nothing after the metadata",
    );
  });

  for (const [label, iss] of [
    ["another issuer", () => "https://evil.example.com"],
    ["the issuer with a trailing slash", (issuer: string) => `${issuer}/`],
    ["no iss although advertised", () => null],
  ] as const) {
    it(`refuses an authorization response with ${label}, before the token endpoint`, async () => {
      const { as, rs } = await setUp({ issInRedirect: iss });
      await rejectsAt(connect(rs.url), "authorize");
      assert.ok(as.requests.some((r) => r.path === "/authorize"));
      assert.ok(!as.requests.some((r) => r.path === "/token"), "the code was never sent");
    });
  }

  it("a refused dynamic client registration fails there, with the server's error, asking nothing more", async () => {
    const { as, rs } = await setUp({
      registrationRefusal: {
        status: 400,
        body: {
          error: "invalid_redirect_uri",
          error_description: "loopback\u001b[2J redirect URIs are not allowed",
        },
      },
    });
    const error = await rejectsAt(connect(rs.url), "registration");
    assert.equal(error.serverError, "invalid_redirect_uri");
    assert.match(
      error.message,
      /^authorization failed \(registration\): the server answered HTTP 400 invalid_redirect_uri \(loopback.*redirect URIs are not allowed\)$/,
    );
    assert.ok(!error.message.includes("\u001b"), "the server's control characters are shown");
    assert.deepEqual(
      as.requests.filter((r) => r.method === "POST" || r.path === "/authorize").map((r) => r.path),
      ["/register"],
    );
  });

  it("refuses an authorization server that does not offer PKCE with S256", async () => {
    const { as, rs } = await setUp({
      extraMetadata: { code_challenge_methods_supported: ["plain"] },
    });
    await rejectsAt(connect(rs.url), "authorize");
    assert.ok(!as.requests.some((r) => r.path === "/authorize"));
  });

  it("never speaks plain http to an authorization server off loopback", async () => {
    const { rs } = await setUp();
    const elsewhere = await startProtectedServer({ tokens: new Map() } as unknown as AuthServer, {
      authorizationServers: () => ["http://as.example.test"],
    });
    open.push(elsewhere);
    const seen: string[] = [];
    const recording: typeof fetch = (input, init) => {
      seen.push(String(input));
      return fetch(input, init);
    };
    const error = await rejectsAt(connect(elsewhere.url, { fetch: recording }), "discovery");
    assert.match(error.message, /not https/);
    assert.ok(seen.length > 0, "the PRM was fetched");
    assert.ok(!seen.some((url) => url.includes("as.example.test")), seen.join(" "));
    void rs;
  });
});

describe("OAuth client: one server per client", () => {
  it("refuses to carry one server's tokens to another", async () => {
    const { rs } = await setUp();
    const other = await setUp();
    const auth = new OAuthClient({ redirect: headlessRedirect() });
    const first = new McpClient({ clientInfo: { name: "one", version: "1" } });
    open.push(first);
    await first.connect(new HttpClientTransport(rs.url, { auth, flavourCache: new Map() }));
    const second = new McpClient({ clientInfo: { name: "two", version: "1" } });
    open.push(second);
    await rejectsAt(
      second.connect(new HttpClientTransport(other.rs.url, { auth, flavourCache: new Map() })),
      "request",
    );
    assert.ok(!other.rs.requests.some((r) => r.headers.authorization), "no token was sent");
  });
});

describe("OAuth client: token endpoint authentication", () => {
  for (const method of ["client_secret_basic", "client_secret_post", "none"] as const) {
    it(`uses ${method} when it is the only one advertised`, async () => {
      const { as, rs } = await setUp({
        tokenEndpointAuthMethods: [method],
        registration: { clientSecret: "s3cret-value" },
      });
      await connect(rs.url);
      const token = as.requests.find((r) => r.path === "/token");
      assert.ok(token);
      const basic = token.headers.authorization;
      if (method === "client_secret_basic") {
        assert.match(basic ?? "", /^Basic /);
        const decoded = Buffer.from((basic ?? "").slice(6), "base64").toString();
        assert.match(decoded, /^client-[0-9a-f]+-\d+:s3cret-value$/);
        assert.equal(token.form.get("client_secret"), null);
      } else if (method === "client_secret_post") {
        assert.equal(basic, undefined);
        assert.equal(token.form.get("client_secret"), "s3cret-value");
      } else {
        assert.equal(basic, undefined);
        assert.equal(token.form.get("client_secret"), null);
        assert.ok(token.form.get("client_id"));
      }
    });
  }

  it("a pre-registered client of another issuer is refused before that issuer hears anything", async () => {
    const { as, rs } = await setUp({ tokenEndpointAuthMethods: ["client_secret_basic"] });
    for (const clientIssuer of ["https://other.example.com", () => false]) {
      const error = await rejectsAt(
        connect(rs.url, { clientId: "pre", clientSecret: "pre-secret", clientIssuer }),
        "registration",
      );
      assert.match(error.message, /the pre-registered client pre belongs to .*nothing was sent/);
    }
    assert.deepEqual(as.requests, [], "the other authorization server heard from us");
  });

  it("of several authorization servers, uses the one the pre-registered client belongs to", async () => {
    const own = await startAuthServer({ tokenEndpointAuthMethods: ["client_secret_basic"] });
    open.push(own);
    const other = await startAuthServer({ tokenEndpointAuthMethods: ["client_secret_basic"] });
    open.push(other);
    const rs = await startProtectedServer(own, {
      authorizationServers: () => [other.issuer, own.issuer],
    });
    open.push(rs);
    await connect(rs.url, {
      clientId: "pre",
      clientSecret: "pre-secret",
      clientIssuer: own.issuer,
    });
    assert.deepEqual(other.requests, []);
    const token = own.requests.find((r) => r.path === "/token");
    assert.match(token?.headers.authorization ?? "", /^Basic /);
  });

  it("a client secret, private key or assertion without its issuer is a mistake in code", () => {
    for (const options of [
      { clientId: "c", clientSecret: "s" },
      { grant: "client_credentials" as const, clientId: "c", clientSecret: "s" },
      { grant: "jwt_bearer" as const, clientId: "c", assertion: "a.b.c" },
    ]) {
      assert.throws(
        () => new OAuthClient({ redirect: headlessRedirect(), ...options }),
        /needs clientIssuer, the authorization server it belongs to/,
      );
    }
    // A public pre-registered client needs none (it has no credentials to give away).
    new OAuthClient({ redirect: headlessRedirect(), clientId: "public" });
  });

  it("error messages carry no secrets", async () => {
    const { rs } = await setUp({ tokenEndpointAuthMethods: ["private_key_jwt"] });
    const error = await rejectsAt(
      connect(rs.url, {
        clientId: "pre",
        clientSecret: "pre-secret-value",
        clientIssuer: firstIssuer(),
      }),
      "registration",
    );
    assert.ok(!error.message.includes("pre-secret-value"));
  });
});
