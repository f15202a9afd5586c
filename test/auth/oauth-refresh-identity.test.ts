/**
 * A refresh uses the client the tokens were issued to (stored, or given in the options) and
 * never registers one: with none known it fails (step "refresh") in one line saying to log in
 * again, before the expiry (an expiring token) or on the server's 401, and the tokens stay. A
 * stored metadata document URL the server no longer takes is no client either.
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import {
  headlessRedirect,
  InMemoryTokenStore,
  OAuthClient,
  type OAuthClientOptions,
  type StoredTokens,
} from "../../src/auth/index.js";
import { McpClient } from "../../src/client/index.js";
import { AuthorizationError, HttpClientTransport } from "../../src/transports/http/client/index.js";
import { type AuthServer, startAuthServer, startProtectedServer } from "./oauth-fixtures.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function connect(url: string, options: Partial<OAuthClientOptions>) {
  const auth = new OAuthClient({ redirect: headlessRedirect(), ...options });
  const client = new McpClient({ clientInfo: { name: "refresh-identity", version: "1.0.0" } });
  open.push(client);
  await client.connect(new HttpClientTransport(url, { auth, flavourCache: new Map() }));
  return client;
}

/**
 * Tokens obtained by a registered client, then a store holding those tokens alone (as a token
 * file from before clients were kept), and the id of the client they were issued to.
 */
async function tokensWithoutClient() {
  const as = await startAuthServer();
  open.push(as);
  const rs = await startProtectedServer(as, { authorizationServers: () => [as.issuer] });
  open.push(rs);
  const first = new InMemoryTokenStore();
  await connect(rs.url, { store: first });
  const tokens = (await first.getTokens(rs.url)) as StoredTokens;
  const clientId = (await first.getClient(as.issuer))?.clientId as string;
  const store = new InMemoryTokenStore();
  await store.setTokens(rs.url, tokens);
  return { as, rs, store, tokens, clientId, seen: as.requests.length };
}

const sentSince = (as: AuthServer, seen: number) =>
  as.requests.slice(seen).filter((r) => r.method === "POST" || r.path === "/authorize");

/** The AuthorizationError a connect's rejection is, or was caused by. */
async function refusal(promise: Promise<unknown>): Promise<AuthorizationError> {
  const failure = await promise.then(
    () => assert.fail("expected a failure"),
    (e: unknown) => e,
  );
  const error = failure instanceof AuthorizationError ? failure : (failure as Error).cause;
  assert.ok(error instanceof AuthorizationError, String(failure));
  return error;
}

function assertOneLineToLogIn(error: AuthorizationError, url: string, secrets: string[]): void {
  assert.equal(error.step, "refresh");
  assert.doesNotMatch(error.message, /\n/);
  assert.ok(error.message.endsWith(`run mcpwire auth login ${url}`), error.message);
  for (const secret of secrets) assert.ok(!error.message.includes(secret), "a token was shown");
}

describe("OAuth client: a refresh never registers", () => {
  it("an expiring token with no client known: fails saying to log in, the tokens kept", async () => {
    const { as, rs, store, tokens, seen } = await tokensWithoutClient();
    const later = () => Date.now() + 2 * 3600 * 1000;
    const error = await refusal(connect(rs.url, { store, now: later }));
    assertOneLineToLogIn(error, rs.url, [tokens.accessToken, tokens.refreshToken as string]);
    assert.deepEqual(sentSince(as, seen), [], "nothing registered, authorized or refreshed");
    assert.deepEqual(await store.getTokens(rs.url), tokens);
    assert.equal(await store.getClient(as.issuer), undefined);
  });

  it("a token the server refuses, no client known: fails alike, nothing registered", async () => {
    const { as, rs, store, tokens, seen } = await tokensWithoutClient();
    as.revokeAll();
    const error = await refusal(connect(rs.url, { store }));
    assertOneLineToLogIn(error, rs.url, [tokens.accessToken, tokens.refreshToken as string]);
    assert.deepEqual(sentSince(as, seen), [], "nothing registered, authorized or refreshed");
    assert.deepEqual(await store.getTokens(rs.url), tokens);
  });

  it("a stored metadata document URL the server no longer takes is no client", async () => {
    const { as, rs, store, seen } = await tokensWithoutClient();
    await store.setClient(as.issuer, {
      clientId: "https://client.example/mcpwire.json",
      source: "metadata-document",
    });
    const later = () => Date.now() + 2 * 3600 * 1000;
    const error = await refusal(connect(rs.url, { store, now: later }));
    assert.equal(error.step, "refresh");
    assert.deepEqual(sentSince(as, seen), [], "nothing registered, authorized or refreshed");
  });

  it("refreshes as the client given in the options, registering nothing", async () => {
    const { as, rs, store, clientId, seen } = await tokensWithoutClient();
    const later = () => Date.now() + 2 * 3600 * 1000;
    const client = await connect(rs.url, { store, clientId, now: later });
    await client.callTool("echo", {});
    const sent = sentSince(as, seen);
    assert.deepEqual(
      sent.map((r) => [r.path, r.form.get("grant_type"), r.form.get("client_id")]),
      [["/token", "refresh_token", clientId]],
    );
  });
});
