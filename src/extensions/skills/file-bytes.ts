/**
 * A skill file's raw bytes to resource contents and back. Digests cover raw bytes, so a file is
 * sent as `text` only when that text encodes back to exactly the same bytes (valid UTF-8, a
 * byte-order mark kept), and as a base64 `blob` otherwise.
 */
import type { ResourceContents } from "../../protocol/mcp-types.js";

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** btoa/atob take strings; this many bytes at a time keep the argument lists small. */
const CHUNK = 0x8000;

/** The bytes as text when they are valid UTF-8, else undefined. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

export function fileContents(uri: string, mimeType: string, bytes: Uint8Array): ResourceContents {
  const text = utf8Text(bytes);
  if (text !== undefined) return { uri, mimeType, text };
  return { uri, mimeType, blob: toBase64(bytes) };
}

/** The raw bytes resource contents stand for: UTF-8 of `text`, or the decoded `blob`. */
export function contentBytes(contents: { text?: unknown; blob?: unknown }): Uint8Array | undefined {
  if (typeof contents.text === "string") return new TextEncoder().encode(contents.text);
  if (typeof contents.blob === "string") return fromBase64(contents.blob);
  return undefined;
}

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let at = 0; at < bytes.length; at += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(at, at + CHUNK));
  }
  return btoa(binary);
}

/** undefined when `text` is not base64. */
export function fromBase64(text: string): Uint8Array | undefined {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}
