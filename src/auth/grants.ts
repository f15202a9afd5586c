/**
 * The token requests, all through oauth4webapi: the authorization code grant with PKCE (S256)
 * and RFC 9207 `iss` validation before the code goes anywhere, refresh, and client credentials.
 * Every authorization and token request names the resource (RFC 8707).
 */
import * as oauth from "oauth4webapi";
import { AuthorizationError, assertSecureUrl } from "../transports/http/client/auth.js";
import type { ClientIdentity } from "./client-identity.js";
import { authorizationFailure } from "./describe.js";
import type { AuthHttp } from "./http.js";
import type { RedirectHandler } from "./redirect.js";

export interface GrantContext {
  readonly http: AuthHttp;
  readonly as: oauth.AuthorizationServer;
  readonly identity: ClientIdentity;
  /** The PRM `resource`. */
  readonly resource: string;
}

export async function authorizationCodeGrant(
  context: GrantContext,
  redirect: RedirectHandler,
  scopes: readonly string[],
): Promise<oauth.TokenEndpointResponse> {
  const { http, as, identity, resource } = context;
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

  let callback: URLSearchParams;
  try {
    const answer = await redirect.authorize(url);
    // The recorded issuer is as.issuer; a present `iss` must equal it character for character,
    // and one advertised but missing is refused (RFC 9207 §2.4) — before the code is used.
    callback = oauth.validateAuthResponse(as, identity.client, answer, state);
  } catch (error) {
    throw authorizationFailure("authorize", error);
  }
  try {
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      identity.client,
      identity.authentication,
      callback,
      redirect.redirectUri,
      verifier,
      {
        additionalParameters: { resource },
        ...http.options(as.token_endpoint, "token", "the token endpoint"),
      },
    );
    return await oauth.processAuthorizationCodeResponse(as, identity.client, response);
  } catch (error) {
    throw authorizationFailure("token", error);
  }
}

export async function refreshGrant(
  context: GrantContext,
  refreshToken: string,
): Promise<oauth.TokenEndpointResponse> {
  const { http, as, identity, resource } = context;
  try {
    const response = await oauth.refreshTokenGrantRequest(
      as,
      identity.client,
      identity.authentication,
      refreshToken,
      {
        additionalParameters: { resource },
        ...http.options(as.token_endpoint, "refresh", "the token endpoint"),
      },
    );
    return await oauth.processRefreshTokenResponse(as, identity.client, response);
  } catch (error) {
    throw authorizationFailure("refresh", error);
  }
}

export async function clientCredentialsGrant(
  context: GrantContext,
  scopes: readonly string[],
): Promise<oauth.TokenEndpointResponse> {
  const { http, as, identity, resource } = context;
  const parameters: Record<string, string> = { resource };
  if (scopes.length > 0) parameters.scope = scopes.join(" ");
  try {
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      identity.client,
      identity.authentication,
      parameters,
      http.options(as.token_endpoint, "token", "the token endpoint"),
    );
    return await oauth.processClientCredentialsResponse(as, identity.client, response);
  } catch (error) {
    throw authorizationFailure("token", error);
  }
}
