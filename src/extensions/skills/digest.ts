/**
 * SEP-2640 digests: SHA-256 of a file's raw bytes as `sha256:` and 64 lowercase hex digits.
 * Web Crypto, so the same code runs wherever mcpwire's portable core does.
 */
const DIGEST = /^sha256:[0-9a-f]{64}$/;

export async function skillDigest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const byte of hash) hex += byte.toString(16).padStart(2, "0");
  return `sha256:${hex}`;
}

export function isSkillDigest(text: unknown): text is string {
  return typeof text === "string" && DIGEST.test(text);
}
