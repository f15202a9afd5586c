import { base64url } from "../platform/bytes.js";
import { sha256 } from "../platform/digest.js";

/**
 * A key for whoever the transport authenticated: a hash of the principal, "" for no one. Hashed
 * so that shared state (a task store, counters) never holds tokens or claims, and so that equal
 * principals (the same claims in a new object) map to the same key.
 */
export function principalKey(principal: unknown): string {
  if (principal === undefined || principal === null) return "";
  let text: string;
  try {
    text = typeof principal === "string" ? principal : JSON.stringify(principal);
  } catch {
    text = String(principal);
  }
  return base64url(sha256(text));
}
