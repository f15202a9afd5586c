/**
 * The request metadata headers a modern Streamable HTTP client mirrors from the body
 * (2026-07-28 basic/transports/streamable-http.mdx, "Request Metadata"). The value encoding and
 * the `x-mcp-header` rules are shared with the server (protocol/http-headers.ts, protocol/header-annotations.ts);
 * this file only decides which headers one outgoing request carries.
 */
import type { JsonRpcRequest } from "../../../jsonrpc/types.js";
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

export type ToolHeaderCheck = { ok: true } | { ok: false; reason: string };

/**
 * Whether a tool's `x-mcp-header` annotations are all valid ("Schema Extension"): a tool with
 * any invalid one must be dropped from tools/list by a Streamable HTTP client.
 */
export function checkToolHeaders(inputSchema: unknown): ToolHeaderCheck {
  const scan = scanHeaderAnnotations(inputSchema);
  return scan.invalid === undefined ? { ok: true } : { ok: false, reason: scan.invalid };
}
