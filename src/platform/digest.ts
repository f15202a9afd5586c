/**
 * SHA-256 and HMAC-SHA256, synchronous, on Node (and Bun, Deno) through node:crypto, loaded on
 * first use: it takes ~3 ms to load, a tenth of a stdio server's start-up, and only servers that
 * seal a requestState or hash a principal pay for it. The web build swaps this file for
 * digest.web.ts (@noble/hashes).
 */
import { createRequire } from "node:module";

let cryptoModule: typeof import("node:crypto") | undefined;
function nodeCrypto(): typeof import("node:crypto") {
  cryptoModule ??= createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return cryptoModule;
}

export function sha256(data: Uint8Array | string): Uint8Array {
  return nodeCrypto().createHash("sha256").update(data).digest();
}

export function hmacSha256(key: Uint8Array, data: Uint8Array | string): Uint8Array {
  return nodeCrypto().createHmac("sha256", key).update(data).digest();
}
