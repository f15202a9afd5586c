/**
 * A private key for `private_key_jwt` client authentication, from PKCS#8 PEM or a JWK, through
 * jose (loaded on first use: clients that never sign pay nothing for it; the signing itself is
 * oauth4webapi's).
 */
import type { webcrypto } from "node:crypto";
import type { JWK } from "jose";

export type PrivateKey = webcrypto.CryptoKey;

export async function importPrivateKey(key: string | JWK, algorithm: string): Promise<PrivateKey> {
  const { importJWK, importPKCS8 } = await import("jose");
  const imported =
    typeof key === "string" ? await importPKCS8(key, algorithm) : await importJWK(key, algorithm);
  if (imported instanceof Uint8Array || imported.type !== "private") {
    throw new TypeError("importPrivateKey: expected an asymmetric private key");
  }
  return imported as PrivateKey;
}
