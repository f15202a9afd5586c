/** The pluggable part of a protected resource: how an access token is checked. */
import type { VerifiedToken } from "./principal.js";

export interface TokenVerifier {
  /**
   * Checks `token` for use at `resource` (the canonical resource URL, which the token's
   * audience must name). Throws InvalidTokenError for a token to refuse (401 invalid_token);
   * any other error means the token cannot be checked now (503, reported).
   */
  verify(token: string, resource: string): Promise<VerifiedToken>;
  /**
   * Longest a verified token is trusted without asking again (ms); it is never trusted past its
   * expiry. Default: until expiry.
   */
  readonly maxCacheMs?: number;
}
