/**
 * Enterprise-managed authorization with the OAuth client: the user's ID token is exchanged at
 * the enterprise identity provider (RFC 8693, test/auth/identity-provider.ts) for an ID-JAG
 * naming the MCP server's authorization server and the MCP resource, which that authorization
 * server (test/auth/jwt-issuer.ts, trusting the IdP's key) takes as a JWT bearer grant; the
 * protected mcpwire server then sees the user. An ID token the IdP refuses stops the flow at the
 * token step, before the MCP server's authorization server is asked anything.
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { OAuthClient, type OAuthClientOptions } from "../../src/auth/index.js";
import { McpClient } from "../../src/client/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/index.js";
import { type IdentityProvider, startIdentityProvider } from "./identity-provider.js";
import { type JwtIssuer, startJwtIssuer } from "./jwt-issuer.js";
import { type Protected, startProtected } from "./resource-server-fixtures.js";
import { assertTokenRefusal } from "./token-refusal.js";

const APP = { id: "mcp-app", secret: "idp-secret" };
let idp: IdentityProvider | undefined;
let as: JwtIssuer | undefined;
let rs: Protected | undefined;
afterEach(async () => {
  await rs?.close();
  await as?.close();
  await idp?.close();
});

async function start() {
  idp = await startIdentityProvider(APP);
  as = await startJwtIssuer();
  as.assertionKeys.push(idp.publicKey);
  rs = await startProtected({ issuer: as.issuer, requiredScopes: ["mcp"] });
  return { idp, as, rs };
}

const enterprise = (idp: IdentityProvider, idToken: string): OAuthClientOptions => ({
  grant: "enterprise",
  clientId: APP.id,
  clientSecret: "as-secret",
  clientIssuer: (as as JwtIssuer).issuer,
  enterprise: {
    idpIssuer: idp.issuer,
    idpClientId: APP.id,
    idpClientSecret: APP.secret,
    idToken: () => idToken,
  },
});

async function connect(url: string, auth: OAuthClient): Promise<McpClient> {
  const client = new McpClient({ clientInfo: { name: "enterprise", version: "1.0.0" } });
  await client.connect(new HttpClientTransport(url, { auth, flavourCache: new Map() }));
  return client;
}

describe("enterprise-managed authorization", () => {
  it("exchanges the ID token for an ID-JAG at the IdP and presents it at the MCP server's AS", async () => {
    const { idp, as, rs } = await start();
    const auth = new OAuthClient(enterprise(idp, await idp.idToken("alice", APP.id)));
    const client = await connect(rs.url, auth);
    try {
      const result = await client.callTool("whoami", {});
      const me = JSON.parse((result.content[0] as { text: string }).text);
      assert.equal(me.subject, "alice");
    } finally {
      await client.close();
    }
    assert.equal(idp.exchanges.length, 1);
    const exchange = idp.exchanges[0]!;
    assert.equal(exchange.get("audience"), as.issuer);
    assert.equal(exchange.get("resource"), rs.url);
    assert.equal(exchange.get("scope"), "mcp");
    const [bearer] = as.tokenRequests;
    assert.equal(bearer?.grantType, "urn:ietf:params:oauth:grant-type:jwt-bearer");
    const grant = bearer?.assertion as string;
    assert.equal(decodeProtectedHeader(grant).typ, "oauth-id-jag+jwt");
    assert.equal(decodeJwt(grant).aud, as.issuer);
    assert.equal(decodeJwt(grant).resource, rs.url);
  });

  it("stops at the token step when the IdP refuses the ID token", async () => {
    const { idp, as, rs } = await start();
    const foreign = await startIdentityProvider(APP);
    const stranger = await foreign.idToken("mallory", APP.id);
    await foreign.close();
    const failure = await connect(rs.url, new OAuthClient(enterprise(idp, stranger))).then(
      async (client) => {
        await client.close();
        return undefined;
      },
      (error: unknown) => error,
    );
    assertTokenRefusal(failure, stranger);
    assert.equal(idp.exchanges.length, 1);
    assert.equal(as.tokenRequests.length, 0);
  });
});
