/**
 * A skill file's raw bytes to resource contents and back. Digests cover raw bytes, so a file is
 * sent as `text` only when that text encodes back to exactly the same bytes (valid UTF-8, a
 * byte-order mark kept), and as a base64 `blob` otherwise.
 */
import { base64, fromBase64, utf8 } from "../../platform/bytes.js";
import type { ResourceContents } from "../../protocol/mcp-types.js";

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

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
  return { uri, mimeType, blob: base64(bytes) };
}

/** The raw bytes resource contents stand for: UTF-8 of `text`, or the decoded `blob`. */
export function contentBytes(contents: { text?: unknown; blob?: unknown }): Uint8Array | undefined {
  if (typeof contents.text === "string") return utf8(contents.text);
  if (typeof contents.blob === "string") return fromBase64(contents.blob);
  return undefined;
}
