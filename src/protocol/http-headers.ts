/**
 * The MCP request headers of Streamable HTTP (2026-07-28) and their value encoding: plain ASCII
 * when safe, else the `=?base64?…?=` sentinel around the UTF-8 bytes. Shared by the server
 * (decode and compare) and the client (encode and mirror).
 */
import { base64, fromBase64, utf8 as utf8Bytes } from "../platform/bytes.js";

export const HEADER = {
  protocolVersion: "MCP-Protocol-Version",
  method: "Mcp-Method",
  name: "Mcp-Name",
  sessionId: "Mcp-Session-Id",
  lastEventId: "Last-Event-ID",
} as const;

/**
 * What the request checks read headers through: a web `Headers`, or the node:http adapter's view
 * of the raw headers. Names are case-insensitive; repeated fields come back joined with ", ".
 */
export interface HeaderSource {
  get(name: string): string | null;
}

/** Prefix of the per-parameter headers; the rest is the `x-mcp-header` value. */
export const PARAM_HEADER_PREFIX = "Mcp-Param-";

const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";
/** Canonical base64 with padding: what a lenient decoder (Buffer's) would silently forgive. */
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// ignoreBOM: a leading U+FEFF is part of the value, not a byte order mark to strip.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Methods whose `Mcp-Name` mirrors a body field, and which field. */
export const NAME_SOURCE: Readonly<Record<string, "name" | "uri" | "taskId">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  // The tasks extension routes by task: "the client MUST set the Mcp-Name header to the value
  // of params.taskId" (extensions/tasks/tasks.md, Streamable HTTP: Routing Headers).
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

/** The header name for one `x-mcp-header` annotation. */
export function paramHeaderName(annotation: string): string {
  return `${PARAM_HEADER_PREFIX}${annotation}`;
}

function isSentinel(value: string): boolean {
  return (
    value.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length &&
    value.startsWith(SENTINEL_PREFIX) &&
    value.endsWith(SENTINEL_SUFFIX)
  );
}

/** Visible ASCII and space only (tabs count as control characters for this purpose). */
function isPlainSafe(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return false;
  }
  return true;
}

/**
 * Client side: the header value for a string. Values that are not plain visible ASCII, that have
 * leading or trailing whitespace, or that look like the sentinel themselves are base64-wrapped.
 */
export function encodeHeaderValue(value: string): string {
  const plain =
    isPlainSafe(value) && value.trim() === value && value !== "" ? !isSentinel(value) : false;
  if (plain) return value;
  return `${SENTINEL_PREFIX}${base64(utf8Bytes(value))}${SENTINEL_SUFFIX}`;
}

/**
 * Client side: the string form of an argument value for its `Mcp-Param-*` header, or undefined
 * when no header is sent (null, absent, not a primitive, or an unsafe integer).
 */
export function paramHeaderValue(value: unknown): string | undefined {
  if (typeof value === "string") return encodeHeaderValue(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isFinite(value)) {
    // 2026-07-28 server/tools.mdx "x-mcp-header": mirrored integers MUST lie within
    // ±(2^53−1). Past that, parsers disagree on the value, so a router could act on a number
    // other than the one executed: the value goes in the body only, never in a header.
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) return undefined;
    return String(value);
  }
  return undefined;
}

/** Whether a value starts or ends with a space or tab (rare: the check saves a regex replace). */
function isPadded(value: string): boolean {
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(value.length - 1);
  return first === 0x20 || first === 0x09 || last === 0x20 || last === 0x09;
}

type DecodeResult = { ok: true; value: string } | { ok: false; reason: string };

/**
 * Server side: reads a received header value. Surrounding whitespace is not part of a field
 * value (RFC 9110); a sentinel value is decoded strictly (canonical padding, valid UTF-8).
 */
export function decodeHeaderValue(raw: string): DecodeResult {
  const value = isPadded(raw) ? raw.replace(/^[ \t]+|[ \t]+$/g, "") : raw;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code > 0x7e) {
      return { ok: false, reason: "contains characters outside visible ASCII" };
    }
  }
  if (!isSentinel(value)) return { ok: true, value };
  const encoded = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!STRICT_BASE64.test(encoded)) return { ok: false, reason: "malformed base64" };
  try {
    // STRICT_BASE64 passed, so it decodes.
    return { ok: true, value: utf8.decode(fromBase64(encoded)!) };
  } catch {
    return { ok: false, reason: "base64 payload is not valid UTF-8" };
  }
}
