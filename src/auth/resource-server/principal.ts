/**
 * Who a verified access token speaks for, as handlers see it (`context.principal`), and the
 * error a verifier throws for a token that must not be accepted.
 */

/** A verified access token: what `context.principal` is on a protected endpoint. */
export interface AccessTokenPrincipal {
  /** The authorization server that issued the token (`iss`). */
  readonly issuer: string;
  /** The resource owner (`sub`), when the token names one. */
  readonly subject: string | undefined;
  /** The OAuth client the token was issued to (`client_id`, else `azp`), when named. */
  readonly clientId: string | undefined;
  /** Granted scopes. */
  readonly scopes: readonly string[];
  /** When the token expires (ms since the epoch); undefined when it does not say. */
  readonly expiresAt: number | undefined;
  /** Every claim of the token (JWT payload, or the introspection answer). */
  readonly claims: Readonly<Record<string, unknown>>;
  /**
   * The identity sessions and multi round-trip state are bound to: issuer, subject and client,
   * not the token itself, so a refreshed token keeps its user's legacy session. (The HTTP
   * binding compares principals as JSON, hence toJSON.)
   */
  toJSON(): unknown;
}

/** A token that is not acceptable: the answer is 401 invalid_token with this description. */
export class InvalidTokenError extends Error {
  override readonly name = "InvalidTokenError";
}

/** What a verifier learned from a good token. */
export interface VerifiedToken {
  readonly issuer: string;
  readonly subject?: string | undefined;
  readonly clientId?: string | undefined;
  readonly scopes: readonly string[];
  /** Seconds since the epoch (the `exp` claim). */
  readonly exp?: number | undefined;
  /** RFC 9449 / RFC 8705 confirmation: `cnf.jkt` binds the token to a DPoP key. */
  readonly jkt?: string | undefined;
  readonly claims: Readonly<Record<string, unknown>>;
  /**
   * Longest this verdict may be remembered (ms), within the verifier's `maxCacheMs` and the
   * token's expiry; 0: not at all.
   */
  readonly maxCacheMs?: number | undefined;
}

export function principalOf(token: VerifiedToken, fallbackKey: () => string): AccessTokenPrincipal {
  // A token naming neither subject nor client is bound to itself (a digest of it): two such
  // tokens must not share a session.
  const identity =
    token.subject === undefined && token.clientId === undefined
      ? { iss: token.issuer, token: fallbackKey() }
      : { iss: token.issuer, sub: token.subject ?? null, client_id: token.clientId ?? null };
  return {
    issuer: token.issuer,
    subject: token.subject,
    clientId: token.clientId,
    scopes: token.scopes,
    expiresAt: token.exp === undefined ? undefined : token.exp * 1000,
    claims: token.claims,
    toJSON: () => identity,
  };
}

/** The space-separated `scope` claim, or an array (`scp`, as some issuers write it). */
export function scopesFrom(claims: Readonly<Record<string, unknown>>): string[] {
  const { scope, scp } = claims;
  if (typeof scope === "string") return scope.split(" ").filter((s) => s !== "");
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === "string");
  if (typeof scp === "string") return scp.split(" ").filter((s) => s !== "");
  return [];
}

export function optionalString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
