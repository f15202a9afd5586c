/**
 * The authorization server's side of DPoP for the test issuer (RFC 9449 §5, §8): the proof of a
 * token request, checked with jose, and the nonce the server may insist on. Answers the key's
 * thumbprint (for the token's cnf.jkt), or the error to send.
 */
import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify } from "jose";

export type ProofOutcome = { ok: true; jkt: string } | { ok: false; error: string; nonce?: string };

export async function checkTokenRequestProof(
  proof: string,
  tokenEndpoint: string,
  requiredNonce: string | undefined,
): Promise<ProofOutcome> {
  try {
    const { payload, protectedHeader } = await jwtVerify(proof, EmbeddedJWK, {
      typ: "dpop+jwt",
      maxTokenAge: 60,
    });
    if (
      payload.htm !== "POST" ||
      payload.htu !== tokenEndpoint ||
      typeof payload.jti !== "string"
    ) {
      return { ok: false, error: "invalid_dpop_proof" };
    }
    if (requiredNonce !== undefined && payload.nonce !== requiredNonce) {
      return { ok: false, error: "use_dpop_nonce", nonce: requiredNonce };
    }
    return { ok: true, jkt: await calculateJwkThumbprint(protectedHeader.jwk!, "sha256") };
  } catch {
    return { ok: false, error: "invalid_dpop_proof" };
  }
}
