/**
 * Revoking stored tokens at their authorization server (RFC 7009), for logout: the refresh token
 * first (revoking it ends the grant at most servers, so a stolen copy is worth nothing), then the
 * access token, each through oauth4webapi with the client identity the tokens were obtained with
 * (pre-registered, metadata document, or the stored registration: never a new registration) and
 * so the same token endpoint authentication method. Nothing is revoked when the server
 * advertises no `revocation_endpoint`. A failure is returned, not thrown, as an
 * AuthorizationError whose message holds no secret: logging out still forgets the tokens.
 */
import type { LookupFunction } from "node:net";
import * as oauth from "oauth4webapi";
import { AuthorizationError } from "../transports/http/client/auth.js";
import { type ClientIdentityOptions, knownClientIdentity } from "./client-identity.js";
import { authorizationFailure } from "./describe.js";
import { discoverAuthorizationServer } from "./discovery.js";
import { AuthHttp, addressScope } from "./http.js";
import type { StoredTokens, TokenStore } from "./token-store.js";

export type RevocableToken = "refresh_token" | "access_token";

export interface RevokeOptions extends ClientIdentityOptions {
  /** The fetch for the authorization server's requests. */
  fetch?: typeof fetch;
  /**
   * The MCP server the tokens are for: loopback or private authorization servers are reached
   * only when it is loopback or private too (as when the tokens were obtained).
   */
  resource?: URL | string;
  /** How names are resolved (see OAuthClientOptions.lookup). */
  lookup?: LookupFunction;
  /** Per request. Default 30 s. */
  timeoutMs?: number;
}

export interface Revocation {
  /** The authorization server advertises a revocation endpoint (false: nothing was sent). */
  readonly offered: boolean;
  /** What the server confirmed revoked, in the order sent. */
  readonly revoked: readonly RevocableToken[];
  /** What was not, with the first reason why. */
  readonly failed: readonly RevocableToken[];
  readonly failure?: AuthorizationError;
}

/** Revokes `tokens` (as a token store keeps them) at the server that issued them. */
export async function revokeTokens(
  tokens: StoredTokens,
  store: TokenStore,
  options: RevokeOptions = {},
): Promise<Revocation> {
  const all: RevocableToken[] = [
    ...(tokens.refreshToken === undefined ? [] : ["refresh_token" as const]),
    "access_token",
  ];
  const http = new AuthHttp(
    options.fetch,
    options.timeoutMs,
    options.resource === undefined ? undefined : addressScope(new URL(options.resource), options),
  );
  let as: oauth.AuthorizationServer;
  let identity: Awaited<ReturnType<typeof knownClientIdentity>>;
  try {
    as = await discoverAuthorizationServer(http, tokens.issuer);
    if (as.revocation_endpoint === undefined) return { offered: false, revoked: [], failed: [] };
    identity = await knownClientIdentity(store, as, options);
  } catch (error) {
    const failure = authorizationFailure("revocation", error);
    return { offered: true, revoked: [], failed: all, failure };
  }
  if (identity === undefined) {
    const failure = new AuthorizationError(
      "revocation",
      `no client registration for ${as.issuer} is known (give the --client-id the tokens came with)`,
    );
    return { offered: true, revoked: [], failed: all, failure };
  }
  const revoked: RevocableToken[] = [];
  const failed: RevocableToken[] = [];
  let failure: AuthorizationError | undefined;
  for (const kind of all) {
    const token = kind === "refresh_token" ? (tokens.refreshToken as string) : tokens.accessToken;
    try {
      const response = await oauth.revocationRequest(
        as,
        identity.client,
        identity.authentication,
        token,
        {
          // The tokens go to the issuer's origin alone.
          ...http.credentialOptions(
            as.revocation_endpoint,
            as.issuer,
            "revocation",
            "the revocation endpoint",
          ),
          additionalParameters: { token_type_hint: kind },
        },
      );
      await oauth.processRevocationResponse(response);
      revoked.push(kind);
    } catch (error) {
      failed.push(kind);
      failure ??= revocationFailure(error);
    }
  }
  return { offered: true, revoked, failed, ...(failure === undefined ? {} : { failure }) };
}

/** RFC 6749 §5.2: an error code is a short word; anything else is not shown. */
const ERROR_CODE = /^[a-z0-9_]{1,64}$/i;

/**
 * Why the revocation endpoint refused, from its status and error code alone: its description
 * could repeat the token just sent, so it is left out.
 */
function revocationFailure(error: unknown): AuthorizationError {
  if (!(error instanceof oauth.ResponseBodyError)) return authorizationFailure("revocation", error);
  const code = ERROR_CODE.test(error.error) ? error.error : undefined;
  return new AuthorizationError(
    "revocation",
    `the server answered HTTP ${error.status}${code === undefined ? "" : ` ${code}`}`,
    code,
  );
}
