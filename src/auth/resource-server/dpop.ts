/**
 * DPoP proofs at the resource server (RFC 9449 §4.3, §7.1): one `DPoP` header holding a JWT of
 * typ dpop+jwt, signed (asymmetric algorithms only) by the public key in its own `jwk` header,
 * whose `htm` and `htu` name this request, `iat` is recent, `ath` is the hash of the access
 * token, `jti` has not been seen before, and whose key's thumbprint is the token's `cnf.jkt`.
 * jose does the JWS work; this file only decides what to check.
 */

import { calculateJwkThumbprint, EmbeddedJWK, errors, type JWK, jwtVerify } from "jose";
import { base64url } from "../../platform/bytes.js";
import { sha256 } from "../../platform/digest.js";
import type { GuardedRequest } from "../../transports/http/resource-guard.js";
import { type DpopReplayCache, InMemoryDpopReplayCache } from "./dpop-replay.js";

export interface DpopOptions {
  /** Refuse tokens that are not DPoP-bound (bearer tokens). Default false. */
  required?: boolean;
  /** Proof signature algorithms accepted. Default ES256, EdDSA, RS256, PS256. */
  algorithms?: string[];
  /** How old (by its `iat`) a proof may be, in seconds. Default 60. */
  maxAgeSec?: number;
  /** Clock skew allowed for a proof's `iat` in the future, in seconds. Default 5. */
  clockSkewSec?: number;
  /**
   * Proof ids remembered to refuse replays (each until it is too old to be accepted anyway).
   * Past this, the oldest are forgotten first. Default 100,000. (The in-memory cache's size.)
   */
  maxRememberedProofs?: number;
  /**
   * Where used proofs are remembered. Default: in this process. Several instances behind one
   * load balancer share one (mcpwire/redis's RedisDpopReplayCache), or a proof used on one
   * instance can be replayed on another.
   */
  replayCache?: DpopReplayCache;
}

/** A proof that is not acceptable: 401 invalid_dpop_proof with this description. */
export class InvalidProofError extends Error {
  override readonly name = "InvalidProofError";
}

const DEFAULT_ALGORITHMS = ["ES256", "EdDSA", "Ed25519", "RS256", "PS256"];

export class DpopChecker {
  readonly required: boolean;
  readonly algorithms: readonly string[];
  private readonly maxAgeSec: number;
  private readonly skewSec: number;
  /** Proofs seen, by `jkt:jti`. */
  private readonly replay: DpopReplayCache;

  constructor(options: DpopOptions) {
    this.required = options.required ?? false;
    this.algorithms = options.algorithms ?? DEFAULT_ALGORITHMS;
    this.maxAgeSec = options.maxAgeSec ?? 60;
    this.skewSec = options.clockSkewSec ?? 5;
    this.replay =
      options.replayCache ?? new InMemoryDpopReplayCache(options.maxRememberedProofs ?? 100_000);
  }

  /**
   * Checks the request's proof for `token`, bound to `jkt`; `resource` is the canonical URL,
   * which `htu` may name besides the URL the request arrived at. Throws InvalidProofError.
   */
  async check(
    request: GuardedRequest,
    token: string,
    jkt: string,
    resource: string,
  ): Promise<void> {
    const proof = request.headers.get("dpop");
    if (proof === null) throw new InvalidProofError("the request has no DPoP proof");
    // Two DPoP headers arrive joined by ", ", which no compact JWS contains.
    if (proof.includes(","))
      throw new InvalidProofError("the request has more than one DPoP proof");
    let payload: Record<string, unknown>;
    let jwk: JWK | undefined;
    try {
      const verified = await jwtVerify(proof, EmbeddedJWK, {
        typ: "dpop+jwt",
        algorithms: [...this.algorithms],
      });
      payload = verified.payload;
      jwk = verified.protectedHeader.jwk;
    } catch (error) {
      if (error instanceof errors.JOSEError)
        throw new InvalidProofError("the DPoP proof does not verify");
      throw error;
    }
    if (!jwk || (await calculateJwkThumbprint(jwk, "sha256")) !== jkt) {
      throw new InvalidProofError("the DPoP proof's key is not the one the token is bound to");
    }
    if (payload.htm !== request.method)
      throw new InvalidProofError("the DPoP proof's htm is not this request's method");
    if (typeof payload.htu !== "string" || !sameTarget(payload.htu, [request.url, resource])) {
      throw new InvalidProofError("the DPoP proof's htu is not this request's URL");
    }
    const now = Date.now() / 1000;
    const iat = payload.iat;
    if (typeof iat !== "number" || iat > now + this.skewSec || iat < now - this.maxAgeSec) {
      throw new InvalidProofError("the DPoP proof's iat is too old or in the future");
    }
    const ath = base64url(sha256(token));
    if (payload.ath !== ath)
      throw new InvalidProofError("the DPoP proof's ath is not the access token's hash");
    if (typeof payload.jti !== "string" || payload.jti === "" || payload.jti.length > 256) {
      throw new InvalidProofError("the DPoP proof has no usable jti");
    }
    const until = (iat + this.maxAgeSec + this.skewSec) * 1000;
    if (!(await this.replay.firstUse(`${jkt}:${payload.jti}`, until))) {
      throw new InvalidProofError("the DPoP proof was used before");
    }
  }
}

/** RFC 9449 §4.3: htu compared without query and fragment, after syntax normalization. */
function sameTarget(htu: string, candidates: readonly string[]): boolean {
  let claimed: string;
  try {
    claimed = withoutQuery(new URL(htu));
  } catch {
    return false;
  }
  return candidates.some((candidate) => withoutQuery(new URL(candidate)) === claimed);
}

function withoutQuery(url: URL): string {
  return `${url.origin}${url.pathname}`;
}
