/**
 * A real authorization server for the end-to-end tests: oidc-provider (certified OpenID
 * Provider) on 127.0.0.1, run as its own process on the Node 22 binary (oidc-provider supports
 * Node 22+; see oidc-provider-process.ts). It issues JWT access tokens (RFC 9068) for the
 * resources named in its configuration, whose audience is the resource indicator (RFC 8707),
 * with refresh token rotation, client credentials, dynamic registration, PKCE, `iss` in
 * authorization responses, DPoP (and `dpop_jkt`) and revocation (RFC 7009). The login and consent pages are replaced by an interaction
 * that signs "user-1" in and grants what was asked (a headless browser only needs to follow
 * redirects and keep cookies).
 *
 *   node oidc-provider-fixture.js '<json config>'   -> prints "listening on <issuer>"
 *
 * GET /test/counts answers how many token and authorization requests it has seen;
 * POST /test/ttl?seconds=N sets the lifetime of access tokens issued from then on.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import Provider, { errors } from "oidc-provider";

export interface OidcFixtureConfig {
  /**
   * Resources by path → the scopes they have: any http://localhost:<port><path> (or
   * 127.0.0.1) indicator is one (the MCP servers under test bind their port after this server
   * started).
   */
  resources: Record<string, string[]>;
  /** Confidential clients for the client credentials grant. */
  clients: { clientId: string; clientSecret: string; scope: string }[];
  /** Access token lifetime, seconds (until /test/ttl changes it). */
  accessTokenTtl: number;
}

const config = JSON.parse(process.argv[2] ?? "{}") as OidcFixtureConfig;

async function signingKeys() {
  const keys = [];
  for (const alg of ["RS256", "ES256"]) {
    const { privateKey } = await generateKeyPair(alg, { extractable: true });
    keys.push({ ...(await exportJWK(privateKey)), alg, use: "sig", kid: alg.toLowerCase() });
  }
  return keys;
}

const counts = { token: 0, authorize: 0 };
let accessTokenTtl = config.accessTokenTtl;
let provider: Provider | undefined;
const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://fixture");
  if (url.pathname === "/test/counts") {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(counts));
    return;
  }
  if (req.method === "POST" && url.pathname === "/test/ttl") {
    accessTokenTtl = Number(url.searchParams.get("seconds"));
    res.writeHead(204).end();
    return;
  }
  if (req.method === "POST" && url.pathname === "/token") counts.token += 1;
  if (req.method === "GET" && url.pathname === "/auth") counts.authorize += 1;
  if (url.pathname.startsWith("/interaction/")) {
    interact(req, res).catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
    return;
  }
  (provider as Provider).callback()(req, res);
});

/** Signs user-1 in, then grants the scopes and resource scopes the request is missing. */
async function interact(
  req: Parameters<Provider["interactionDetails"]>[0],
  res: Parameters<Provider["interactionDetails"]>[1],
) {
  const op = provider as Provider;
  const details = await op.interactionDetails(req, res);
  if (details.prompt.name === "login") {
    await op.interactionFinished(req, res, { login: { accountId: "user-1" } });
    return;
  }
  const grant = details.grantId
    ? ((await op.Grant.find(details.grantId)) as InstanceType<Provider["Grant"]>)
    : new op.Grant({
        accountId: details.session?.accountId as string,
        clientId: details.params.client_id as string,
      });
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(" "));
  }
  const grantId = await grant.save();
  await op.interactionFinished(
    req,
    res,
    { consent: { grantId } },
    { mergeWithLastSubmission: true },
  );
}

await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const allScopes = [...new Set(Object.values(config.resources).flat())];

provider = new Provider(issuer, {
  jwks: { keys: await signingKeys() },
  cookies: { keys: [randomBytes(16).toString("hex")] },
  clients: config.clients.map((client) => ({
    client_id: client.clientId,
    client_secret: client.clientSecret,
    grant_types: ["client_credentials"],
    response_types: [],
    redirect_uris: [],
    scope: client.scope,
  })),
  scopes: ["openid", "offline_access", ...allScopes],
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  interactions: { url: async (_ctx, interaction) => `/interaction/${interaction.uid}` },
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
  ttl: { AccessToken: () => accessTokenTtl, ClientCredentials: () => accessTokenTtl },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    registration: { enabled: true },
    // RFC 7009, for `mcpwire auth logout`: a client may revoke its own tokens only.
    revocation: {
      enabled: true,
      allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
    },
    resourceIndicators: {
      enabled: true,
      defaultResource: async (_ctx, _client, oneOf) => oneOf,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, indicator) => {
        const url = new URL(indicator);
        const local = url.hostname === "localhost" || url.hostname === "127.0.0.1";
        const scopes = local ? config.resources[url.pathname] : undefined;
        if (!scopes) throw new errors.InvalidTarget();
        return {
          scope: scopes.join(" "),
          audience: indicator,
          accessTokenTTL: accessTokenTtl,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "ES256" } },
        };
      },
    },
  },
});
// Quiet: errors a test provokes on purpose are expected.
provider.on("server_error", (_ctx, error) => process.stderr.write(`server_error: ${error}\n`));
process.stdout.write(`listening on ${issuer}\n`);
process.on("SIGTERM", () => server.close(() => process.exit(0)));
