/**
 * The token requests, all through oauth4webapi: the authorization code grant with PKCE (S256)
 * and RFC 9207 `iss` validation before the code goes anywhere, refresh, client credentials, and
 * the JWT bearer grant (RFC 7523: workload identity, enterprise-managed authorization).
 * Every authorization and token request names the resource (RFC 8707). With a DPoP key each
 * token request carries a proof, and a `use_dpop_nonce` answer is retried once with the nonce
 * the server sent (RFC 9449 §8); the authorization request names the key (`dpop_jkt`, §10).
 */
import * as oauth from "oauth4webapi";
import {
  AuthorizationError,
  type AuthorizationStep,
  assertSecureUrl,
} from "../transports/http/client/auth.js";
import type { ClientIdentity } from "./client-identity.js";
import { answeredFailure, authorizationFailure } from "./describe.js";
import type { DpopKey } from "./dpop.js";
import type { AuthHttp } from "./http.js";
import type { RedirectHandler } from "./redirect.js";

export interface GrantContext {
  readonly http: AuthHttp;
  readonly as: oauth.AuthorizationServer;
  readonly identity: ClientIdentity;
  /** The PRM `resource`. */
  readonly resource: string;
  /** Binds the tokens to this key (DPoP) when present. */
  readonly dpop?: DpopKey;
}

export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/**
 * Sends a token request and processes its answer; when the server wants a DPoP nonce (the
 * handle has cached it from the answer), sends it once more. `secret`: the grant itself is a
 * credential (a refresh token, an assertion), as client authentication is.
 */
export async function tokenRequest(
  context: GrantContext,
  step: AuthorizationStep,
  send: (options: oauth.TokenEndpointRequestOptions) => Promise<Response>,
  process: (response: Response) => Promise<oauth.TokenEndpointResponse>,
  secret = false,
): Promise<oauth.TokenEndpointResponse> {
  const { http, as, dpop, identity } = context;
  // Client credentials, assertions and refresh tokens go to the issuer's own origin only.
  const credentials = secret || sendsCredentials(identity);
  const options = () => ({
    ...(credentials
      ? http.credentialOptions(as.token_endpoint, as.issuer, step, "the token endpoint")
      : http.options(as.token_endpoint, step, "the token endpoint")),
    ...(dpop === undefined ? {} : { DPoP: dpop.handle }),
  });
  try {
    try {
      return await process(await send(options()));
    } catch (error) {
      if (dpop === undefined || !oauth.isDPoPNonceError(error)) throw error;
      return await process(await send(options()));
    }
  } catch (error) {
    throw await answeredFailure(step, error);
  }
}

/**
 * Whether the token endpoint still knows the client: one authorization code request with a code
 * that cannot be valid, answered `invalid_grant` by a server that knows the client and
 * `invalid_client` by one that forgot it (RFC 6749 §5.2). For a stored registration, before a
 * person is sent to an authorization page that would only show an error and never come back.
 */
export async function clientKnown(context: GrantContext, redirectUri: string): Promise<boolean> {
  const { as, identity } = context;
  try {
    await tokenRequest(
      context,
      "authorize",
      (options) =>
        oauth.genericTokenEndpointRequest(
          as,
          identity.client,
          identity.authentication,
          "authorization_code",
          {
            code: oauth.generateRandomState(),
            redirect_uri: redirectUri,
            code_verifier: oauth.generateRandomCodeVerifier(),
          },
          options,
        ),
      (response) => oauth.processGenericTokenEndpointResponse(as, identity.client, response),
    );
  } catch (error) {
    return !(error instanceof AuthorizationError && error.serverError === "invalid_client");
  }
  return true;
}

/** Whether requests as `identity` authenticate the client (a secret, a signed assertion). */
export function sendsCredentials(identity: ClientIdentity): boolean {
  return identity.method !== "none";
}

export async function authorizationCodeGrant(
  context: GrantContext,
  redirect: RedirectHandler,
  scopes: readonly string[],
): Promise<oauth.TokenEndpointResponse> {
  const { as, identity, resource } = context;
  if (!as.code_challenge_methods_supported?.includes("S256")) {
    // security-considerations.mdx: no advertised S256, no PKCE we can rely on: refuse.
    throw new AuthorizationError(
      "authorize",
      `${as.issuer} does not advertise PKCE with S256 (code_challenge_methods_supported)`,
    );
  }
  if (as.authorization_endpoint === undefined) {
    throw new AuthorizationError("authorize", `${as.issuer} has no authorization endpoint`);
  }
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint);
  assertSecureUrl(url, "authorize", "the authorization endpoint");
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", identity.client.client_id);
  url.searchParams.set("redirect_uri", redirect.redirectUri);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", state);
  url.searchParams.set("resource", resource);
  if (scopes.length > 0) url.searchParams.set("scope", scopes.join(" "));
  if (context.dpop !== undefined) {
    // RFC 9449 §10: the code is bound to the key, so a stolen code is useless without it.
    url.searchParams.set("dpop_jkt", await context.dpop.handle.calculateThumbprint());
  }

  let callback: URLSearchParams;
  try {
    const answer = await redirect.authorize(url);
    // The recorded issuer is as.issuer; a present `iss` must equal it character for character,
    // and one advertised but missing is refused (RFC 9207 §2.4) — before the code is used.
    callback = oauth.validateAuthResponse(as, identity.client, answer, state);
  } catch (error) {
    throw authorizationFailure("authorize", error);
  }
  return tokenRequest(
    context,
    "token",
    (options) =>
      oauth.authorizationCodeGrantRequest(
        as,
        identity.client,
        identity.authentication,
        callback,
        redirect.redirectUri,
        verifier,
        { ...options, additionalParameters: { resource } },
      ),
    (response) => oauth.processAuthorizationCodeResponse(as, identity.client, response),
  );
}

export async function refreshGrant(
  context: GrantContext,
  refreshToken: string,
): Promise<oauth.TokenEndpointResponse> {
  const { as, identity, resource } = context;
  return tokenRequest(
    context,
    "refresh",
    (options) =>
      oauth.refreshTokenGrantRequest(as, identity.client, identity.authentication, refreshToken, {
        ...options,
        additionalParameters: { resource },
      }),
    (response) => oauth.processRefreshTokenResponse(as, identity.client, response),
    true,
  );
}

export function clientCredentialsGrant(
  context: GrantContext,
  scopes: readonly string[],
): Promise<oauth.TokenEndpointResponse> {
  return parameterGrant(context, "client_credentials", {}, scopes);
}

/** RFC 7523 §2.1: the assertion (a workload's JWT, an ID-JAG) is the grant. */
export function jwtBearerGrant(
  context: GrantContext,
  assertion: string,
  scopes: readonly string[],
): Promise<oauth.TokenEndpointResponse> {
  return parameterGrant(context, JWT_BEARER_GRANT, { assertion }, scopes, true);
}

/** A grant that is just its parameters, the resource and the scopes. */
function parameterGrant(
  context: GrantContext,
  grantType: string,
  parameters: Record<string, string>,
  scopes: readonly string[],
  secret = false,
): Promise<oauth.TokenEndpointResponse> {
  const { as, identity } = context;
  return tokenRequest(
    context,
    "token",
    (options) =>
      oauth.genericTokenEndpointRequest(
        as,
        identity.client,
        identity.authentication,
        grantType,
        { ...withResourceAndScopes(context, scopes), ...parameters },
        options,
      ),
    (response) => oauth.processGenericTokenEndpointResponse(as, identity.client, response),
    secret,
  );
}

function withResourceAndScopes(
  context: GrantContext,
  scopes: readonly string[],
): Record<string, string> {
  const parameters: Record<string, string> = { resource: context.resource };
  if (scopes.length > 0) parameters.scope = scopes.join(" ");
  return parameters;
}
