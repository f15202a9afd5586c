/**
 * Server Validation of a modern POST (2026-07-28 Streamable HTTP): the media types it carries and
 * accepts, which era it belongs to, the request's `_meta` envelope, and the mirrored headers
 * against the body. Intermediaries route on the headers while we execute the body, so any
 * disagreement is refused with -32020 before a handler runs. Headers are read through
 * `HeaderSource`, so the web-standard core and the node:http fast path run the same checks.
 */
import {
  HeaderMismatchError,
  InvalidParamsError,
  isPlainObject,
  type JsonRpcError,
  UnsupportedProtocolVersionError,
} from "../../jsonrpc/errors.js";
import type { JsonRpcMessage, JsonRpcRequest } from "../../jsonrpc/types.js";
import { scanHeaderAnnotations, valueAtPath } from "../../protocol/header-annotations.js";
import {
  decodeHeaderValue,
  HEADER,
  type HeaderSource,
  NAME_SOURCE,
  paramHeaderName,
} from "../../protocol/http-headers.js";
import { META } from "../../protocol/meta.js";
import { isLegacyVersion } from "../../protocol/versions.js";

export interface RequestCheckContext {
  /** Versions this server speaks; anything else is -32022. */
  supportedVersions: readonly string[];
  /**
   * What -32022's data.supported lists, when more than `supportedVersions`: a dual-era
   * server names its legacy versions too, so that a client learns a fallback exists.
   */
  advertisedVersions?: readonly string[];
  /** The inputSchema of a registered tool, for its `x-mcp-header` annotations. */
  toolInputSchema(name: string): unknown;
}

// A media type as one entry of a comma-separated list (Accept, Content-Type): at the start or
// after a comma, surrounding whitespace and parameters (";…") aside, any case. Regular
// expressions rather than split/trim/toLowerCase, which made ~10 strings and arrays per request.
const LISTS_JSON = /(?:^|,)\s*application\/json\s*(?:[;,]|$)/i;
const LISTS_SSE = /(?:^|,)\s*text\/event-stream\s*(?:[;,]|$)/i;
const STARTS_WITH_JSON = /^\s*application\/json\s*(?:[;,]|$)/i;

/** Whether Accept lists both JSON and SSE by name; wildcards such as curl's default do not count. */
export function acceptsBoth(accept: string | null): boolean {
  return accept !== null && LISTS_JSON.test(accept) && LISTS_SSE.test(accept);
}

/** Whether the (first) media type of a Content-Type is application/json. */
export function isJsonContentType(contentType: string | null): boolean {
  return contentType !== null && STARTS_WITH_JSON.test(contentType);
}

/**
 * Whether a POST belongs to the modern (2026-07-28) path: `_meta` with a protocol version says
 * yes (legacy clients never send that key); else a legacy MCP-Protocol-Version header, or none,
 * says no; any other version header says yes unless the request names a legacy session (whose
 * handler then refuses the version).
 */
export function claimsModern(headers: HeaderSource, message: JsonRpcMessage): boolean {
  const params = "method" in message ? message.params : undefined;
  if (params && isPlainObject(params._meta) && META.protocolVersion in params._meta) return true;
  const version = headers.get(HEADER.protocolVersion)?.trim();
  if (version === undefined || version === "" || isLegacyVersion(version)) return false;
  return headers.get(HEADER.sessionId) === null;
}

/** Returns the error to answer with, or undefined when the request may be dispatched. */
export function checkModernRequest(
  headers: HeaderSource,
  request: JsonRpcRequest,
  context: RequestCheckContext,
): JsonRpcError | undefined {
  const headerVersion = headers.get(HEADER.protocolVersion)?.trim();
  if (!headerVersion) return mismatch(`missing ${HEADER.protocolVersion} header`);
  const params = request.params ?? {};
  const meta = params._meta;
  const version = isPlainObject(meta) ? meta[META.protocolVersion] : undefined;
  if (
    !isPlainObject(meta) ||
    typeof version !== "string" ||
    !isPlainObject(meta[META.clientCapabilities])
  ) {
    return new InvalidParamsError(
      `Every request needs _meta with ${META.protocolVersion} (string) and ${META.clientCapabilities} (object)`,
    );
  }
  if (headerVersion !== version) {
    return mismatch(
      `${HEADER.protocolVersion} header value '${headerVersion}' does not match body value '${version}'`,
    );
  }
  if (!context.supportedVersions.includes(version)) {
    const advertised = context.advertisedVersions ?? context.supportedVersions;
    return new UnsupportedProtocolVersionError([...advertised], version);
  }

  const method = headers.get(HEADER.method);
  if (method === null) return mismatch(`missing ${HEADER.method} header`);
  // Values are case-sensitive: TOOLS/LIST is not tools/list.
  if (method.trim() !== request.method) {
    return mismatch(
      `${HEADER.method} header value '${method.trim()}' does not match body value '${request.method}'`,
    );
  }

  const nameField = NAME_SOURCE[request.method];
  if (nameField) {
    const raw = headers.get(HEADER.name);
    if (raw === null) return mismatch(`missing ${HEADER.name} header for ${request.method}`);
    const decoded = decodeHeaderValue(raw);
    if (!decoded.ok) return mismatch(`${HEADER.name} header: ${decoded.reason}`);
    const bodyValue = params[nameField];
    if (decoded.value !== bodyValue) {
      return mismatch(
        `${HEADER.name} header value '${decoded.value}' does not match body value '${String(bodyValue)}'`,
      );
    }
  }

  if (request.method === "tools/call" && typeof params.name === "string") {
    return checkParamHeaders(headers, context.toolInputSchema(params.name), params.arguments);
  }
  return undefined;
}

function checkParamHeaders(
  headers: HeaderSource,
  inputSchema: unknown,
  args: unknown,
): JsonRpcError | undefined {
  for (const annotation of scanHeaderAnnotations(inputSchema).annotations) {
    const headerName = paramHeaderName(annotation.name);
    const raw = headers.get(headerName);
    const value = valueAtPath(args, annotation.path);
    if (value === undefined || value === null) {
      // A header the body does not back would let a router act on a value we never execute.
      if (raw !== null) return mismatch(`${headerName} header sent but the argument has no value`);
      continue;
    }
    if (typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)) {
      // Mirrored integers MUST lie within ±(2^53−1) (2026-07-28 server/tools.mdx
      // "x-mcp-header"); conforming clients send no header for one past that, and a header that
      // is sent may have been read otherwise by an intermediary. Refused either way.
      return new InvalidParamsError(
        `argument ${annotation.path.join(".")} (mirrored in ${headerName}) is an integer outside the safe range ±(2^53-1)`,
      );
    }
    if (raw === null) return mismatch(`missing ${headerName} header for a provided argument`);
    const decoded = decodeHeaderValue(raw);
    if (!decoded.ok) return mismatch(`${headerName} header: ${decoded.reason}`);
    if (!matchesArgument(decoded.value, value)) {
      return mismatch(
        `${headerName} header value '${decoded.value}' does not match body value '${describeValue(value)}'`,
      );
    }
  }
  return undefined;
}

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Numbers compare numerically (`42.0` equals `42`), booleans as lowercase words. */
function matchesArgument(header: string, value: unknown): boolean {
  switch (typeof value) {
    case "string":
      return header === value;
    case "number":
      return DECIMAL.test(header) && Number(header) === value;
    case "boolean":
      return header === (value ? "true" : "false");
    default:
      // Objects and arrays cannot be mirrored; a header claiming one is never a match.
      return false;
  }
}

/** A body value for an error message; one too deeply nested to serialise must not turn a 400 into a 500. */
function describeValue(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return "<too deeply nested to show>";
  }
}

function mismatch(detail: string): HeaderMismatchError {
  return new HeaderMismatchError(`Header mismatch: ${detail}`);
}
