/**
 * Which credentials a request carries, as a digest: what keeps one token's "private" cached
 * results from being served to another (2026-07-28 server/utilities/caching.mdx, "Cache Scope
 * Field": caches MUST NOT be shared across authorization contexts). Only the digest ever leaves
 * this file, so a cache key that gets logged shows no token.
 */
import { base64url } from "../../../platform/bytes.js";
// node:crypto loads only for clients that send an Authorization header (platform/digest.ts).
import { sha256 } from "../../../platform/digest.js";

/** SHA-256 (base64url) of the Authorization header's value; undefined without one. */
export function authorizationDigest(
  headers: Readonly<Record<string, string>> | undefined,
): string | undefined {
  if (!headers) return undefined;
  for (const name of Object.keys(headers)) {
    if (name.length === 13 && name.toLowerCase() === "authorization") {
      return base64url(sha256(headers[name]!));
    }
  }
  return undefined;
}
