/**
 * Which DPoP key an OAuthClient's tokens are bound to (RFC 9449): the one a grant binds new
 * tokens to (kept, new, or none, as the `dpop` option and the two servers say), the one stored
 * tokens were bound to, and when a resource server's challenge deserves a retry with its nonce.
 */
import { decodeJwt } from "jose";
import type { HttpAuthChallenge } from "../transports/http/client/auth.js";
import { DpopKey, type DpopNonces, dpopAlgorithm } from "./dpop.js";
import type { Session } from "./oauth-session.js";
import type { StoredTokens } from "./token-store.js";
import { type AuthChallenge, parseWwwAuthenticate } from "./www-authenticate.js";

/**
 * The key for a grant at `session`'s authorization server: `current` where that server takes
 * its algorithm, else a new one when DPoP is wanted (`option` true, or by default where the
 * authorization server offers DPoP and the MCP server shows it takes it), else none.
 */
export async function grantDpopKey(
  option: boolean | undefined,
  session: Session,
  current: DpopKey | undefined,
  resourceTakesDpop: boolean,
): Promise<DpopKey | undefined> {
  if (option === false) return undefined;
  const offered = session.as.dpop_signing_alg_values_supported;
  if (current !== undefined && (offered === undefined || offered.includes(current.alg))) {
    return current;
  }
  const wanted =
    option === true ||
    (offered !== undefined && (resourceTakesDpop || session.metadata.dpop === true));
  const alg = wanted ? dpopAlgorithm(offered) : undefined;
  return alg === undefined ? undefined : DpopKey.generate(alg);
}

/** The key stored with `tokens`: undefined for unbound ones, false when it cannot be used. */
export async function restoredKey(
  tokens: StoredTokens | undefined,
): Promise<DpopKey | undefined | false> {
  if (tokens?.dpopKey === undefined) return tokens?.tokenType === "dpop" ? false : undefined;
  try {
    return await DpopKey.restore(tokens.dpopKey);
  } catch {
    return false;
  }
}

export function isDpopChallenge(challenge: AuthChallenge): boolean {
  return challenge.scheme === "dpop";
}

/**
 * A 401 whose DPoP challenge says `use_dpop_nonce` to a request that carried a proof: worth
 * sending again with the newest nonce (RFC 9449 §9; onAnswer kept it). False when it is no
 * such answer, when there is no key, or when the newest nonce is the very one the refused proof
 * carried (asking again with it would only be refused again).
 */
export function wantsNewNonce(
  challenge: HttpAuthChallenge,
  nonces: DpopNonces,
  hasKey: boolean,
): boolean {
  const nonce = challenge.headers.get("dpop-nonce");
  const proof = challenge.sent.DPoP;
  if (challenge.status !== 401 || nonce === null || proof === undefined) return false;
  const asked = parseWwwAuthenticate(challenge.headers.get("www-authenticate")).some(
    (c) => isDpopChallenge(c) && c.params.error === "use_dpop_nonce",
  );
  // Parallel requests refused alike all retry: compared with what each one sent.
  if (!asked || !hasKey) return false;
  // The newest nonce (another answer may have brought a newer one meanwhile), if it is new.
  const current = nonces.for(challenge.request.url);
  return current !== undefined && current !== decodeJwt(proof).nonce;
}
