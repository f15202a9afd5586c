/**
 * Tokens as an OAuthClient holds and stores them: made from a token endpoint answer, judged
 * for expiry, and turned into a request's headers (with a fresh DPoP proof for a bound token).
 */
import type * as oauth from "oauth4webapi";
import { AuthorizationError, type HttpAuthRequest } from "../transports/http/client/auth.js";
import type { DpopKey } from "./dpop.js";
import type { StoredTokens } from "./token-store.js";

export interface Issued {
  readonly issuer: string;
  /** The scopes asked for (what a step-up adds to). */
  readonly requestedScopes: readonly string[];
  /** Kept when a refresh answer brings no new one. */
  readonly previousRefresh: string | undefined;
  /** The key the request was bound to. */
  readonly dpop: DpopKey | undefined;
  /** Now, in milliseconds since the epoch. */
  readonly now: number;
}

/** The tokens to keep from a token endpoint answer; a DPoP token without a proof is refused. */
export function tokensFrom(response: oauth.TokenEndpointResponse, issued: Issued): StoredTokens {
  const { dpop } = issued;
  const refreshToken = response.refresh_token ?? issued.previousRefresh;
  const lifetime = response.expires_in;
  const tokenType = response.token_type.toLowerCase();
  if (tokenType === "dpop" && dpop === undefined) {
    throw new AuthorizationError("token", "the server issued a DPoP token without a DPoP proof");
  }
  return {
    accessToken: response.access_token,
    tokenType,
    // Kept with a bound token, and with a bearer one too when the refresh token may be bound.
    ...(dpop === undefined ? {} : { dpopKey: dpop.stored }),
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(typeof lifetime === "number" ? { expiresAt: issued.now + lifetime * 1000 } : {}),
    requestedScopes: [...issued.requestedScopes],
    issuer: issued.issuer,
  };
}

/** Whether the tokens expire within `leewayMs` of `now` (never when no lifetime was given). */
export function expiring(tokens: StoredTokens, now: number, leewayMs: number): boolean {
  if (tokens.expiresAt === undefined) return false;
  return now >= tokens.expiresAt - leewayMs;
}

export function authorizationOf(tokens: StoredTokens): string {
  return `${tokens.tokenType === "dpop" ? "DPoP" : "Bearer"} ${tokens.accessToken}`;
}

/** Authorization (and for a DPoP-bound token, a fresh proof for this very request). */
export async function requestHeaders(
  request: HttpAuthRequest,
  tokens: StoredTokens,
  key: DpopKey | undefined,
  nonce: string | undefined,
): Promise<Record<string, string>> {
  if (tokens.tokenType !== "dpop") return { Authorization: authorizationOf(tokens) };
  return {
    Authorization: authorizationOf(tokens),
    DPoP: await (key as DpopKey).proof(request.method, request.url, tokens.accessToken, nonce),
  };
}
