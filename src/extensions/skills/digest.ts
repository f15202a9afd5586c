/**
 * SEP-2640 digests: SHA-256 of a file's raw bytes as `sha256:` and 64 lowercase hex digits
 * (node:crypto on Node, Bun and Deno; plain JavaScript in the web build: src/platform).
 */
import { sha256 } from "../../platform/digest.js";

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export function skillDigest(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of sha256(bytes)) hex += byte.toString(16).padStart(2, "0");
  return `sha256:${hex}`;
}

export function isSkillDigest(text: unknown): text is string {
  return typeof text === "string" && DIGEST.test(text);
}
