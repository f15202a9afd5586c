/**
 * Where a remote MCP server can make the OAuth client send requests (issue 32 B1): its resource
 * metadata, its authorization servers and their endpoints must not reach loopback, private,
 * link-local or reserved addresses unless the MCP server is on one itself; names are checked as
 * connections resolve them (a resolver option stands in for DNS: a public name that resolves to
 * 127.0.0.1); client credentials, assertions and refresh tokens go to the issuer's origin only.
 * A TCP listener counts the connections that would have got through.
 */
import assert from "node:assert/strict";
import type { LookupAddress } from "node:dns";
import { createServer, isIP, type LookupFunction, type Server } from "node:net";
import { afterEach, describe, it } from "node:test";
import { isPublicAddress } from "../../src/auth/address-scope.js";
import { headlessRedirect, OAuthClient, type OAuthClientOptions } from "../../src/auth/index.js";
import { McpClient } from "../../src/client/index.js";
import { AuthorizationError, HttpClientTransport } from "../../src/transports/http/client/index.js";
import { startAuthServer, startProtectedServer } from "./oauth-fixtures.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

/** A resolver from a table (names not in it do not resolve), counting what it was asked. */
function tableLookup(table: Record<string, string[]>) {
  const asked: string[] = [];
  const lookup: LookupFunction = (hostname, options, callback) => {
    asked.push(hostname);
    const addresses: LookupAddress[] = (table[hostname] ?? []).map((address) => ({
      address,
      family: isIP(address),
    }));
    if (addresses.length === 0) {
      const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
        code: "ENOTFOUND",
      });
      return void callback(error, "", 4);
    }
    if (options.all === true) return void callback(null, addresses);
    const [first] = addresses as [LookupAddress];
    callback(null, first.address, first.family);
  };
  return { lookup, asked };
}

/** A TCP listener on 127.0.0.1 that counts connections and closes them. */
async function connectionCounter(): Promise<{ port: number; count(): number } & Closable> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const counter = {
    port: (server.address() as { port: number }).port,
    count: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  open.push(counter);
  return counter;
}

interface Closable {
  close(): Promise<void>;
}

const PUBLIC = "93.184.215.14";

/** The 401 of the MCP server at `endpoint`, handed to a new OAuthClient: what it made of it. */
async function answer(
  endpoint: string,
  wwwAuthenticate: string,
  options: Partial<OAuthClientOptions>,
): Promise<unknown> {
  const client = new OAuthClient({ redirect: headlessRedirect(), timeoutMs: 3_000, ...options });
  const url = new URL(endpoint);
  const request = { method: "POST", url, endpoint: url };
  const sent = await client.headers(request);
  const headers = new Headers({ "www-authenticate": wwwAuthenticate });
  return client
    .onChallenge({ request, status: 401, headers, sent, retried: false })
    .catch((error: unknown) => error);
}

/** The same, expecting a refusal. */
async function challenge(
  endpoint: string,
  wwwAuthenticate: string,
  options: Partial<OAuthClientOptions>,
): Promise<AuthorizationError> {
  const error = await answer(endpoint, wwwAuthenticate, options);
  assert.ok(error instanceof AuthorizationError, `not refused: ${String(error)}`);
  return error;
}

describe("OAuth client: requests a remote MCP server points inward", () => {
  it("classifies addresses as public or not", () => {
    for (const address of ["93.184.215.14", "8.8.8.8", "2606:4700::1111", "64:ff9b::808:808"]) {
      assert.ok(isPublicAddress(address), address);
    }
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "::ffff:127.0.0.1",
      "::ffff:a9fe:a9fe",
      "::7f00:1",
      "64:ff9b::7f00:1",
      "fd00::1",
      "fe80::1",
      "ff02::1",
      "2002:7f00:1::",
    ]) {
      assert.ok(!isPublicAddress(address), address);
    }
  });

  it("refuses resource metadata at a loopback, private, link-local or reserved address", async () => {
    const counter = await connectionCounter();
    const { lookup } = tableLookup({ "mcp.example": [PUBLIC] });
    for (const target of [
      `http://127.0.0.1:${counter.port}/prm`,
      `http://localhost:${counter.port}/prm`,
      `https://[::ffff:127.0.0.1]:${counter.port}/prm`,
      "https://169.254.169.254/latest/meta-data/",
      "https://10.0.0.1/prm",
      "https://[fd00::1]/prm",
    ]) {
      const error = await challenge(
        "https://mcp.example/mcp",
        `Bearer resource_metadata="${target}"`,
        { lookup },
      );
      assert.equal(error.step, "discovery");
      assert.match(
        error.message,
        /a loopback, private or reserved address, and the MCP server https:\/\/mcp\.example is not on one: refused$/,
      );
    }
    assert.equal(counter.count(), 0, "a connection was made");
  });

  it("checks a name where the connection resolves it: a public-looking name for 127.0.0.1 gets nowhere", async () => {
    const counter = await connectionCounter();
    for (const addresses of [["127.0.0.1"], [PUBLIC, "127.0.0.1"]]) {
      const { lookup, asked } = tableLookup({
        "mcp.example": [PUBLIC],
        "metadata.example": addresses,
      });
      const error = await challenge(
        "https://mcp.example/mcp",
        `Bearer resource_metadata="https://metadata.example:${counter.port}/prm"`,
        { lookup },
      );
      assert.match(
        error.message,
        /^authorization failed \(discovery\): .* at 127\.0\.0\.1, a loopback/,
      );
      // Resolved once, by the connection itself: no earlier answer that a later one could undo.
      assert.deepEqual(
        asked.filter((name) => name === "metadata.example"),
        ["metadata.example"],
      );
    }
    assert.equal(counter.count(), 0, "a connection was made");
  });

  it("refuses authorization servers and their endpoints that point inward (with the user's own fetch too)", async () => {
    const { lookup } = tableLookup({
      "mcp.example": [PUBLIC],
      "as.example": [PUBLIC],
      "as.internal.example": ["10.0.0.5"],
    });
    const asked: string[] = [];
    // The internet as the test knows it: the MCP server's metadata and a public AS.
    let authorizationServer = "https://as.internal.example";
    const internet: typeof fetch = async (input) => {
      const url = new URL(String(input));
      asked.push(url.href);
      if (url.href === "https://mcp.example/.well-known/oauth-protected-resource/mcp") {
        return Response.json({
          resource: "https://mcp.example/mcp",
          authorization_servers: [authorizationServer],
        });
      }
      if (url.href === "https://as.example/.well-known/oauth-authorization-server") {
        return Response.json({
          issuer: "https://as.example",
          authorization_endpoint: "https://as.example/authorize",
          token_endpoint: "https://as.example/token",
          registration_endpoint: "https://192.168.1.1/register",
          code_challenge_methods_supported: ["S256"],
        });
      }
      return new Response("not found", { status: 404 });
    };
    const inward = await challenge("https://mcp.example/mcp", "Bearer", {
      lookup,
      fetch: internet,
    });
    assert.match(inward.message, /https:\/\/as\.internal\.example is at 10\.0\.0\.5, a loopback/);
    authorizationServer = "https://as.example";
    const registration = await challenge("https://mcp.example/mcp", "Bearer", {
      lookup,
      fetch: internet,
    });
    assert.equal(registration.step, "registration");
    assert.match(registration.message, /the registration endpoint https:\/\/192\.168\.1\.1 is a/);
    assert.ok(
      asked.every((url) => !/internal|192\.168/.test(url)),
      `asked for ${asked.join(" ")}`,
    );
  });

  it("lets an MCP server on a private network use loopback and private authorization servers", async () => {
    const as = await startAuthServer();
    open.push(as);
    const rs = await startProtectedServer(as, {
      authorizationServers: () => [as.issuer],
      resource: "https://mcp.corp.example/mcp",
    });
    open.push(rs);
    const { lookup } = tableLookup({ "mcp.corp.example": ["10.1.2.3"] });
    const outcome = await answer(
      "https://mcp.corp.example/mcp",
      `Bearer resource_metadata="${rs.origin}/.well-known/oauth-protected-resource/mcp"`,
      { lookup },
    );
    assert.equal(outcome, "retry", String(outcome));
    assert.deepEqual(
      as.requests.map((r) => r.path),
      ["/.well-known/oauth-authorization-server", "/register", "/authorize", "/token"],
    );
  });
});

describe("OAuth client: credentials go to the issuer's origin only", () => {
  async function setUp(grant: Partial<OAuthClientOptions>) {
    const elsewhere = await startAuthServer();
    open.push(elsewhere);
    const as = await startAuthServer({
      tokenEndpointAuthMethods: ["client_secret_basic", "none"],
      extraMetadata: { token_endpoint: `${elsewhere.origin}/token` },
    });
    open.push(as);
    const rs = await startProtectedServer(as, { authorizationServers: () => [as.issuer] });
    open.push(rs);
    const auth = new OAuthClient({ clientIssuer: as.issuer, ...grant } as OAuthClientOptions);
    const client = new McpClient({ clientInfo: { name: "ssrf-test", version: "1.0.0" } });
    open.push(client);
    const error = await client
      .connect(new HttpClientTransport(rs.url, { auth, flavourCache: new Map() }))
      .then(
        () => assert.fail("connected"),
        (e: unknown) => e,
      );
    let found: unknown = error;
    while (found instanceof Error && !(found instanceof AuthorizationError)) found = found.cause;
    assert.ok(found instanceof AuthorizationError, String(error));
    assert.equal(found.step, "token");
    assert.match(
      found.message,
      /the token endpoint http:\/\/127\.0\.0\.1:\d+ is not on the origin of the authorization server http:\/\/127\.0\.0\.1:\d+: client credentials are not sent there$/,
    );
    assert.deepEqual(elsewhere.requests, [], "the other origin heard from us");
  }

  it("a client secret", async () => {
    await setUp({ grant: "client_credentials", clientId: "pre", clientSecret: "pre-secret" });
  });

  it("a workload identity assertion", async () => {
    await setUp({ grant: "jwt_bearer", clientId: "pre", assertion: "workload.jwt.value" });
  });
});
