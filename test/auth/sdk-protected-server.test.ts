/**
 * Interop: mcpwire's OAuth client against a protected server built the official SDK's way
 * (@modelcontextprotocol/server: createMcpHandler behind requireBearerAuth, the metadata from
 * oauthMetadataResponse), with oidc-provider as the authorization server and the few lines of
 * token verification the SDK leaves to the application (jose against the issuer's JWKS). Our
 * client reads the SDK's challenge and metadata, registers, authorizes with PKCE and calls a
 * tool; a token the SDK refuses makes our client authorize afresh.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type AuthInfo,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  type OAuthMetadata,
  oauthMetadataResponse,
  requireBearerAuth,
} from "@modelcontextprotocol/server";
import { createRemoteJWKSet, jwtVerify } from "jose";
import * as z from "zod";
import { InMemoryTokenStore, OAuthClient } from "../../src/auth/index.js";
import { McpClient } from "../../src/client/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/index.js";
import { type ServedFetch, serveFetch } from "../helpers/serve-fetch.js";
import { browserRedirect } from "./browser-redirect.js";
import { type OidcProvider, startOidcProvider } from "./oidc-provider-process.js";

let op: OidcProvider;
let sdk: ServedFetch;
/** Who the SDK server's tool saw, per call. */
const seen: (string | undefined)[] = [];

function buildServer(): McpServer {
  const server = new McpServer({ name: "sdk-protected", version: "2.0.0" });
  server.registerTool("whoami", { inputSchema: z.object({}) }, async (_args, ctx) => {
    const subject = (ctx.http?.authInfo?.extra as { sub?: string } | undefined)?.sub;
    seen.push(subject);
    return { content: [{ type: "text", text: subject ?? "nobody" }] };
  });
  return server;
}

before(async () => {
  op = await startOidcProvider({
    resources: { "/mcp": ["mcp:tools"] },
    clients: [],
    accessTokenTtl: 300,
  });
  const oauthMetadata = (await (
    await fetch(`${op.issuer}/.well-known/openid-configuration`)
  ).json()) as OAuthMetadata;
  const jwks = createRemoteJWKSet(new URL(oauthMetadata.jwks_uri as string));
  let resource: URL | undefined;
  // The verification the SDK leaves to the application: a JWT from the issuer, for us.
  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: op.issuer,
          audience: resource?.href,
          typ: "at+jwt",
        });
        return {
          token,
          clientId: String(payload.client_id),
          scopes: String(payload.scope ?? "").split(" "),
          expiresAt: payload.exp as number,
          resource,
          extra: { sub: payload.sub },
        };
      } catch {
        throw new OAuthError(OAuthErrorCode.InvalidToken, "the token is not valid here");
      }
    },
  };
  const handler = createMcpHandler(() => buildServer());
  let gate: ReturnType<typeof requireBearerAuth> | undefined;
  sdk = await serveFetch(async (request) => {
    const options = {
      oauthMetadata,
      resourceServerUrl: resource as URL,
      scopesSupported: ["mcp:tools"],
      dangerouslyAllowInsecureIssuerUrl: true,
    };
    const metadata = oauthMetadataResponse(request, options);
    if (metadata) return metadata;
    const auth = await (gate as NonNullable<typeof gate>)(request);
    if (auth instanceof Response) return auth;
    return handler.fetch(request, { authInfo: auth });
  });
  resource = new URL(sdk.url);
  gate = requireBearerAuth({
    verifier,
    requiredScopes: ["mcp:tools"],
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource),
    expectedResource: resource,
  });
});
after(async () => {
  await sdk.close();
  await op.close();
});

describe("mcpwire's OAuth client against the official SDK's protected server", () => {
  it("discovers, registers, authorizes with PKCE and calls a tool; a token it refuses is replaced", async () => {
    const store = new InMemoryTokenStore();
    const auth = () =>
      new OAuthClient({ redirect: browserRedirect(), store, clientName: "mcpwire-interop" });
    const call = async () => {
      const client = new McpClient({ clientInfo: { name: "interop", version: "1.0.0" } });
      try {
        await client.connect(new HttpClientTransport(sdk.url, { auth: auth() }));
        const result = await client.callTool("whoami", {});
        return (result.content[0] as { text: string }).text;
      } finally {
        await client.close();
      }
    };
    assert.equal(await call(), "user-1");
    // A stored token the SDK refuses (401 invalid_token): our client authorizes afresh.
    const good = await store.getTokens(sdk.url);
    assert.ok(good);
    const before = await op.counts();
    await store.setTokens(sdk.url, {
      ...good,
      accessToken: "not-a-token",
      refreshToken: undefined,
    });
    assert.equal(await call(), "user-1");
    const now = await op.counts();
    assert.equal(now.authorize - before.authorize, 1);
    assert.deepEqual(seen, ["user-1", "user-1"]);
  });
});
