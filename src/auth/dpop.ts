/**
 * DPoP (RFC 9449) for the OAuth client: the key pair a client's tokens are bound to, the proofs
 * it signs, and the nonces servers hand out.
 *
 * - Token endpoint requests carry oauth4webapi's DPoP handle (proof per request, the
 *   authorization server's nonce cached per origin from its answers).
 * - Requests to the MCP server carry a proof signed here with jose: `htm`, `htu` (no query or
 *   fragment), `ath` (the token's hash), a fresh `jti`, and the newest nonce the resource server
 *   handed out, on whatever answer it came (RFC 9449 §9; DpopNonces).
 * - The key travels with the tokens in the store (a private JWK), so a refreshed or reloaded
 *   token keeps its binding.
 */
import type { webcrypto } from "node:crypto";
import { exportJWK, importJWK, type JWK, SignJWT } from "jose";
import * as oauth from "oauth4webapi";
import { base64url } from "../platform/bytes.js";
import { sha256 } from "../platform/digest.js";

/** The key as the token store keeps it. */
export interface StoredDpopKey {
  readonly alg: string;
  /** The private JWK (it holds the public part too). */
  readonly jwk: JWK;
}

/** Proof algorithms this client can sign with, in the order it prefers them. */
const ALGORITHMS = ["ES256", "EdDSA", "PS256", "RS256"];

/**
 * The algorithm to use with an authorization server that lists `supported`
 * (`dpop_signing_alg_values_supported`); undefined when none of them is one we sign with.
 */
export function dpopAlgorithm(supported: readonly string[] | undefined): string | undefined {
  if (supported === undefined) return "ES256";
  return ALGORITHMS.find((alg) => supported.includes(alg));
}

export class DpopKey {
  readonly alg: string;
  private readonly keyPair: webcrypto.CryptoKeyPair;
  private readonly publicJwk: JWK;
  private readonly privateJwk: JWK;
  private handleValue: oauth.DPoPHandle | undefined;

  private constructor(
    alg: string,
    keyPair: webcrypto.CryptoKeyPair,
    publicJwk: JWK,
    privateJwk: JWK,
  ) {
    this.alg = alg;
    this.keyPair = keyPair;
    this.publicJwk = publicJwk;
    this.privateJwk = privateJwk;
  }

  static async generate(alg: string): Promise<DpopKey> {
    // Extractable so the key can be stored with the tokens it binds.
    const keyPair = await oauth.generateKeyPair(alg, { extractable: true });
    const [publicJwk, privateJwk] = await Promise.all([
      exportJWK(keyPair.publicKey),
      exportJWK(keyPair.privateKey),
    ]);
    return new DpopKey(alg, keyPair, publicOnly(publicJwk), privateJwk);
  }

  static async restore(stored: StoredDpopKey): Promise<DpopKey> {
    const publicJwk = publicOnly(stored.jwk);
    const [privateKey, publicKey] = await Promise.all([
      importJWK(stored.jwk, stored.alg, { extractable: true }),
      importJWK(publicJwk, stored.alg, { extractable: true }),
    ]);
    if (privateKey instanceof Uint8Array || publicKey instanceof Uint8Array) {
      throw new TypeError("a DPoP key must be an asymmetric key pair");
    }
    return new DpopKey(stored.alg, { privateKey, publicKey }, publicJwk, stored.jwk);
  }

  get stored(): StoredDpopKey {
    return { alg: this.alg, jwk: this.privateJwk };
  }

  /** For oauth4webapi's token endpoint requests (it keeps the authorization server's nonce). */
  get handle(): oauth.DPoPHandle {
    this.handleValue ??= oauth.DPoP({}, this.keyPair);
    return this.handleValue;
  }

  /** A proof for one request to the resource server, bound to `accessToken`. */
  proof(method: string, url: URL, accessToken: string, nonce: string | undefined): Promise<string> {
    return new SignJWT({
      htm: method,
      htu: `${url.origin}${url.pathname}`,
      ath: base64url(sha256(accessToken)),
      ...(nonce === undefined ? {} : { nonce }),
    })
      .setProtectedHeader({ alg: this.alg, typ: "dpop+jwt", jwk: this.publicJwk })
      .setIssuedAt()
      .setJti(globalThis.crypto.randomUUID())
      .sign(this.keyPair.privateKey);
  }
}

/** RFC 9449 §8.1: `nonce = 1*NQCHAR` (printable ASCII without `"` and `\`). */
const NONCE_SYNTAX = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
/** Longer is no nonce a server means (and would bloat every proof). */
const MAX_NONCE_LENGTH = 512;
/** Origins remembered at most; the oldest is forgotten first. */
const MAX_ORIGINS = 16;

/**
 * The resource servers' DPoP nonces, per origin: the newest one each handed out, on a success
 * as on a challenge. Kept apart from the key so a nonce outlives a new key (and may arrive
 * before there is one). A value that is not a nonce is ignored.
 */
export class DpopNonces {
  private readonly byOrigin = new Map<string, string>();

  remember(url: URL, nonce: string): void {
    if (nonce.length > MAX_NONCE_LENGTH || !NONCE_SYNTAX.test(nonce)) return;
    this.byOrigin.delete(url.origin);
    if (this.byOrigin.size >= MAX_ORIGINS) {
      this.byOrigin.delete(this.byOrigin.keys().next().value as string);
    }
    this.byOrigin.set(url.origin, nonce);
  }

  for(url: URL): string | undefined {
    return this.byOrigin.get(url.origin);
  }
}

/** The public members of a JWK (RFC 7517/7518): what goes into the proof's `jwk` header. */
function publicOnly(jwk: JWK): JWK {
  const { kty, crv, x, y, n, e } = jwk;
  const out: JWK = { kty };
  for (const [name, value] of Object.entries({ crv, x, y, n, e })) {
    if (value !== undefined) (out as Record<string, string>)[name] = value;
  }
  return out;
}
