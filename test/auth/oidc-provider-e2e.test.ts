/**
 * End to end against a real authorization server (oidc-provider, in its own process) and the
 * everything example as a protected resource (`--auth-issuer`, `--auth-scopes`): mcpwire's
 * OAuth client gets in with the authorization code flow (dynamic registration, PKCE, `iss`,
 * resource indicators; a browser-like redirect handler) and with client credentials; refreshes
 * an expired token with a rotating refresh token, once for 20 parallel calls; revokes its refresh
 * token on logout; and the server refuses a token for another audience, an expired, a tampered
 * and an unsigned one (401) and one without the scopes it needs (403 insufficient_scope). Last, DPoP-bound tokens from
 * oidc-provider at an mcpwire server that requires DPoP: the code bound to the key (`dpop_jkt`,
 * refused with another key's), the token kept bound across a refresh.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, type JWK } from "jose";
import {
  AuthorizationError,
  InMemoryTokenStore,
  OAuthClient,
  type OAuthClientOptions,
  type RedirectHandler,
} from "../../src/auth/index.js";
import { McpClient } from "../../src/client/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/index.js";
import { type ListeningChild, spawnListening, stopChild } from "../helpers/listening-child.js";
import { post, request } from "../transports/http/http-helpers.js";
import { browserRedirect } from "./browser-redirect.js";
import { type OidcProvider, startOidcProvider } from "./oidc-provider-process.js";
import { challengeOf, type Protected, startProtected } from "./resource-server-fixtures.js";

const SERVER = new URL("../../examples/everything-server.js", import.meta.url).pathname;
const NEEDED = ["mcp:tools", "mcp:admin"];

let op: OidcProvider;
let everything: ListeningChild;
/** The everything server's resource URL (its PRM names http://localhost:<port>/mcp). */
let mcpUrl: string;

before(async () => {
  op = await startOidcProvider({
    resources: { "/mcp": NEEDED, "/other": NEEDED },
    clients: [
      { clientId: "robot", clientSecret: "robot-secret-0123456789", scope: NEEDED.join(" ") },
      { clientId: "reader", clientSecret: "reader-secret-0123456789", scope: "mcp:tools" },
    ],
    accessTokenTtl: 300,
  });
  everything = await spawnListening(process.execPath, [
    SERVER,
    ...["--http", "--port", "0", "--auth-issuer", op.issuer, "--auth-scopes", NEEDED.join(" ")],
  ]);
  mcpUrl = `http://localhost:${new URL(everything.url).port}/mcp`;
});
after(async () => {
  await stopChild(everything.child);
  await op.close();
});

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

async function withClient<T>(
  url: string,
  auth: OAuthClient,
  use: (client: McpClient) => Promise<T>,
): Promise<T> {
  const client = new McpClient({ clientInfo: { name: "e2e", version: "1.0.0" } });
  try {
    await client.connect(new HttpClientTransport(url, { auth, flavourCache: new Map() }));
    return await use(client);
  } finally {
    await client.close();
  }
}

const simpleText = (client: McpClient) =>
  client.callTool("test_simple_text", {}).then((r) => textOf(r as { content: unknown[] }));

/** A token straight from the token endpoint (client credentials), for raw requests. */
async function clientCredentialsToken(
  clientId: string,
  secret: string,
  resource: string,
  scope: string,
): Promise<string> {
  const response = await fetch(`${op.issuer}/token`, {
    method: "POST",
    headers: {
      Authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ grant_type: "client_credentials", resource, scope }),
  });
  const body = (await response.json()) as { access_token?: string };
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.access_token as string;
}

const listTools = (token: string) =>
  post(mcpUrl, request("tools/list"), { Authorization: `Bearer ${token}` });

/** Resolves once `token` has expired for the server too (it answers 401). */
async function untilExpired(token: string): Promise<void> {
  const { exp } = decodeJwt(token);
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, (exp as number) * 1000 - Date.now())),
  );
  for (;;) {
    const response = await listTools(token);
    await response.body?.cancel();
    if (response.status === 401) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The browser, recording each authorization URL (after `change`, a tampering user agent's). */
function recordingRedirect(asked: URL[], change?: (url: URL) => void): RedirectHandler {
  const browser = browserRedirect();
  return {
    redirectUri: browser.redirectUri,
    authorize(url, signal) {
      change?.(url);
      asked.push(url);
      return browser.authorize(url, signal);
    },
  };
}

const codeFlow = (extra: Partial<OAuthClientOptions> = {}) =>
  new OAuthClient({ redirect: browserRedirect(), clientName: "mcpwire-e2e", ...extra });

describe("mcpwire's OAuth client against oidc-provider and the everything server", () => {
  it("authorization code with PKCE, headless: registers, authorizes, and calls tools", async () => {
    const store = new InMemoryTokenStore();
    const text = await withClient(mcpUrl, codeFlow({ store }), simpleText);
    assert.match(text, /simple text/i);
    const tokens = await store.getTokens(mcpUrl);
    const claims = decodeJwt(tokens?.accessToken as string);
    assert.equal(claims.aud, mcpUrl);
    assert.equal(claims.iss, op.issuer);
    assert.equal(claims.sub, "user-1");
    assert.deepEqual(String(claims.scope).split(" ").sort(), [...NEEDED].sort());
    assert.ok(tokens?.refreshToken, "offline_access was offered, so a refresh token came");
  });

  it("client credentials: discovers the issuer from the challenge and gets in", async () => {
    const auth = new OAuthClient({
      grant: "client_credentials",
      clientId: "robot",
      clientSecret: "robot-secret-0123456789",
      clientIssuer: op.issuer,
    });
    assert.match(await withClient(mcpUrl, auth, simpleText), /simple text/i);
  });

  it("logout({ revoke: true }) revokes the refresh token (oidc-provider cannot revoke its JWT access tokens)", async () => {
    const store = new InMemoryTokenStore();
    const auth = codeFlow({ store });
    await withClient(mcpUrl, auth, simpleText);
    const held = await store.getTokens(mcpUrl);
    const clientId = (await store.getClient(op.issuer))?.clientId as string;
    const revocation = await auth.logout({ revoke: true });
    assert.equal(revocation?.offered, true);
    assert.deepEqual(revocation?.revoked, ["refresh_token"]);
    assert.deepEqual(revocation?.failed, ["access_token"]);
    assert.equal(revocation?.failure?.step, "revocation");
    assert.equal(revocation?.failure?.serverError, "unsupported_token_type");
    assert.equal(await store.getTokens(mcpUrl), undefined);
    const refused = await op.refresh(held?.refreshToken as string, clientId, mcpUrl);
    assert.deepEqual(refused, { status: 400, error: "invalid_grant" });
  });

  it("refreshes an expired token, once for 20 parallel calls (the refresh token rotates)", async () => {
    const store = new InMemoryTokenStore();
    const auth = codeFlow({ store, refreshLeewayMs: 0 });
    await op.setTokenLifetime(2);
    try {
      await withClient(mcpUrl, auth, async (client) => {
        await simpleText(client);
        await op.setTokenLifetime(300);
        const first = await store.getTokens(mcpUrl);
        await untilExpired(first?.accessToken as string);
        const before = await op.counts();
        const texts = await Promise.all(Array.from({ length: 20 }, () => simpleText(client)));
        assert.equal(texts.length, 20);
        const now = await op.counts();
        assert.equal(now.token - before.token, 1);
        assert.equal(now.authorize, before.authorize, "a refresh, not a new authorization");
        const second = await store.getTokens(mcpUrl);
        assert.notEqual(second?.accessToken, first?.accessToken);
        assert.notEqual(second?.refreshToken, first?.refreshToken);
      });
    } finally {
      await op.setTokenLifetime(300);
    }
  });
});

describe("the everything server refuses bad tokens from oidc-provider", () => {
  it("accepts a good one (the control)", async () => {
    const token = await clientCredentialsToken(
      "robot",
      "robot-secret-0123456789",
      mcpUrl,
      NEEDED.join(" "),
    );
    const response = await listTools(token);
    await response.body?.cancel();
    assert.equal(response.status, 200);
  });

  it("401 for another audience, a tampered token and an unsigned one", async () => {
    const other = mcpUrl.replace(/\/mcp$/, "/other");
    const wrongAudience = await clientCredentialsToken(
      "robot",
      "robot-secret-0123456789",
      other,
      NEEDED.join(" "),
    );
    const good = await clientCredentialsToken(
      "robot",
      "robot-secret-0123456789",
      mcpUrl,
      "mcp:tools",
    );
    const [header, payload, signature] = good.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const widened = Buffer.from(JSON.stringify({ ...claims, scope: NEEDED.join(" ") })).toString(
      "base64url",
    );
    const tampered = `${header}.${widened}.${signature}`;
    const none = Buffer.from(JSON.stringify({ alg: "none", typ: "at+jwt" })).toString("base64url");
    const unsigned = `${none}.${widened}.`;
    for (const [what, token] of [
      ["another audience", wrongAudience],
      ["tampered", tampered],
      ["unsigned", unsigned],
    ] as const) {
      const response = await listTools(token);
      await response.body?.cancel();
      assert.equal(response.status, 401, what);
      assert.equal(challengeOf(response).error, "invalid_token", what);
    }
  });

  it("401 for an expired token", async () => {
    await op.setTokenLifetime(1);
    let token: string;
    try {
      token = await clientCredentialsToken(
        "robot",
        "robot-secret-0123456789",
        mcpUrl,
        NEEDED.join(" "),
      );
    } finally {
      await op.setTokenLifetime(300);
    }
    // untilExpired ends on the 401 this test is about; the challenge says why.
    await untilExpired(token);
    const response = await listTools(token);
    await response.body?.cancel();
    assert.equal(response.status, 401);
    assert.equal(challengeOf(response).error, "invalid_token");
  });

  it("403 insufficient_scope naming the scopes for a token without them", async () => {
    const token = await clientCredentialsToken(
      "reader",
      "reader-secret-0123456789",
      mcpUrl,
      "mcp:tools",
    );
    const response = await listTools(token);
    await response.body?.cancel();
    assert.equal(response.status, 403);
    const challenge = challengeOf(response);
    assert.equal(challenge.error, "insufficient_scope");
    assert.deepEqual(challenge.scope?.split(" ").sort(), [...NEEDED].sort());
  });
});

describe("DPoP with oidc-provider", () => {
  let rs: Protected;
  before(async () => {
    rs = await startProtected({
      issuer: op.issuer,
      requiredScopes: ["mcp:tools"],
      dpop: { required: true },
    });
  });
  after(async () => {
    await rs.close();
  });

  const whoami = (client: McpClient) =>
    client
      .callTool("whoami", {})
      .then((r) => JSON.parse(textOf(r as { content: unknown[] })) as { subject: string });

  it("client credentials: a DPoP-bound token the DPoP-only server accepts", async () => {
    const store = new InMemoryTokenStore();
    const auth = new OAuthClient({
      grant: "client_credentials",
      clientId: "robot",
      clientSecret: "robot-secret-0123456789",
      clientIssuer: op.issuer,
      store,
    });
    assert.equal((await withClient(rs.url, auth, whoami)).subject, "robot");
    const tokens = await store.getTokens(rs.url);
    assert.equal(tokens?.tokenType, "dpop");
    assert.ok((decodeJwt(tokens?.accessToken as string).cnf as { jkt?: string }).jkt);
  });

  it("authorization code: the authorization request names the key (dpop_jkt), and the token is bound to it", async () => {
    const store = new InMemoryTokenStore();
    const asked: URL[] = [];
    const auth = codeFlow({ store, redirect: recordingRedirect(asked) });
    assert.equal((await withClient(rs.url, auth, whoami)).subject, "user-1");
    const tokens = await store.getTokens(rs.url);
    const jkt = await calculateJwkThumbprint(tokens?.dpopKey?.jwk as JWK, "sha256");
    assert.equal(asked.length, 1);
    assert.equal(asked[0]?.searchParams.get("dpop_jkt"), jkt);
    assert.equal((decodeJwt(tokens?.accessToken as string).cnf as { jkt: string }).jkt, jkt);
  });

  it("authorization code: a code bound to another key (dpop_jkt) is refused at the token endpoint", async () => {
    const stranger = await generateKeyPair("ES256", { extractable: true });
    const otherJkt = await calculateJwkThumbprint(await exportJWK(stranger.publicKey), "sha256");
    const auth = codeFlow({
      redirect: recordingRedirect([], (url) => url.searchParams.set("dpop_jkt", otherJkt)),
    });
    const failure = await withClient(rs.url, auth, whoami).then(
      () => assert.fail("the token request should be refused"),
      (error: unknown) => error,
    );
    const error = failure instanceof AuthorizationError ? failure : (failure as Error).cause;
    assert.ok(error instanceof AuthorizationError, String(failure));
    assert.equal(error.step, "token");
    assert.equal(error.serverError, "invalid_grant");
  });

  it("authorization code: the refreshed token is bound to the same key", async () => {
    const store = new InMemoryTokenStore();
    const auth = codeFlow({ store, refreshLeewayMs: 0 });
    await op.setTokenLifetime(2);
    try {
      await withClient(rs.url, auth, async (client) => {
        assert.equal((await whoami(client)).subject, "user-1");
        await op.setTokenLifetime(300);
        const first = await store.getTokens(rs.url);
        const { exp } = decodeJwt(first?.accessToken as string);
        await new Promise((r) => setTimeout(r, (exp as number) * 1000 - Date.now() + 1000));
        const before = await op.counts();
        assert.equal((await whoami(client)).subject, "user-1");
        const now = await op.counts();
        assert.equal(now.token - before.token, 1);
        assert.equal(now.authorize, before.authorize, "a refresh, not a new authorization");
        const second = await store.getTokens(rs.url);
        assert.notEqual(second?.accessToken, first?.accessToken);
        const jkt = (token: string | undefined) =>
          (decodeJwt(token as string).cnf as { jkt: string }).jkt;
        assert.equal(jkt(second?.accessToken), jkt(first?.accessToken));
        assert.deepEqual(second?.dpopKey, first?.dpopKey);
      });
    } finally {
      await op.setTokenLifetime(300);
    }
  });
});
