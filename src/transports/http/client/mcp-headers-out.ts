/**
 * The request metadata headers a modern Streamable HTTP client mirrors from the body
 * (2026-07-28 basic/transports/streamable-http.mdx, "Request Metadata"). The value encoding and
 * the `x-mcp-header` rules are shared with the server (protocol/http-headers.ts, protocol/header-annotations.ts);
 * this file only decides which headers one outgoing request carries.
 */
import type { JsonRpcMessage, JsonRpcRequest } from "../../../jsonrpc/types.js";
import { scanHeaderAnnotations } from "../../../protocol/header-annotations.js";
import { encodeHeaderValue, HEADER, NAME_SOURCE } from "../../../protocol/http-headers.js";

/** `Mcp-Method` and, where the method has one, `Mcp-Name`. */
export function standardHeaders(request: JsonRpcRequest): Record<string, string> {
  const headers: Record<string, string> = { [HEADER.method]: request.method };
  const field = NAME_SOURCE[request.method];
  const value = field ? request.params?.[field] : undefined;
  if (typeof value === "string") headers[HEADER.name] = encodeHeaderValue(value);
  return headers;
}

/** What a W3C trace context header may hold: visible ASCII and spaces, nothing else. */
const TRACE_HEADER_VALUE = /^[\x20-\x7e]{1,512}$/;

/**
 * Copies the W3C trace context a request carries in `_meta` into the `traceparent` and
 * `tracestate` headers, so that HTTP-level tooling (proxies, a server's HTTP instrumentation)
 * sees the same trace (the OpenTelemetry MCP conventions; the server prefers `_meta`). A value
 * that could not be a header is left out. Writes into `headers`.
 */
export function addTraceHeaders(headers: Record<string, string>, message: JsonRpcMessage): void {
  const meta = "params" in message ? message.params?._meta : undefined;
  if (typeof meta !== "object" || meta === null) return;
  const { traceparent, tracestate } = meta as { traceparent?: unknown; tracestate?: unknown };
  if (typeof traceparent !== "string" || !TRACE_HEADER_VALUE.test(traceparent)) return;
  headers.traceparent = traceparent;
  if (typeof tracestate === "string" && TRACE_HEADER_VALUE.test(tracestate)) {
    headers.tracestate = tracestate;
  }
}

export type ToolHeaderCheck = { ok: true } | { ok: false; reason: string };

/**
 * Whether a tool's `x-mcp-header` annotations are all valid ("Schema Extension"): a tool with
 * any invalid one must be dropped from tools/list by a Streamable HTTP client.
 */
export function checkToolHeaders(inputSchema: unknown): ToolHeaderCheck {
  const scan = scanHeaderAnnotations(inputSchema);
  return scan.invalid === undefined ? { ok: true } : { ok: false, reason: scan.invalid };
}
