/**
 * The small HTTP answers of the legacy handler: JSON-RPC errors without a request (wrong
 * headers, unknown sessions, conflicts, a server restarting) and the checks behind them.
 */
import { ErrorCode } from "../../../jsonrpc/errors.js";
import type { JsonRpcId } from "../../../jsonrpc/types.js";
import { jsonReply, toResponse } from "../exchange.js";
import type { HeaderPairs } from "../security.js";

/**
 * The reply to a request still running when its process died (kill -9, or a grace period that
 * ran out) and that a rebuilt session or another instance of a cluster finds unanswered:
 * nothing can finish it, and a client waiting on the stream must not hang. InternalError,
 * because the client did nothing wrong.
 */
export const RESTARTED_BEFORE_REPLY = "The server restarted before it completed this request";

export function samePrincipal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

/**
 * A request while shutting down for a restart: the client should come back shortly, on a new
 * connection (this one would lead back to the process that is going away).
 */
export function restarting(id: JsonRpcId | null, headers: Headers | HeaderPairs): Response {
  const withRetry = new Headers(headers as Headers | [string, string][]);
  withRetry.set("Retry-After", "1");
  withRetry.set("Connection", "close");
  return errorResponse(id, "Service Unavailable: the server is restarting", 503, withRetry);
}

export function conflict(headers: Headers): Response {
  return errorResponse(null, "Conflict: this stream is already connected", 409, headers);
}

/** `headers`: a web Headers, or the pairs of the node:http fast path. */
export function errorResponse(
  id: JsonRpcId | null,
  message: string,
  status: number,
  headers: Headers | HeaderPairs,
): Response {
  const error = { code: ErrorCode.InvalidRequest, message };
  return toResponse(jsonReply({ jsonrpc: "2.0", id, error }, status, [...headers]));
}

export function acceptsEventStream(accept: string | null): boolean {
  if (!accept) return false;
  return accept
    .split(",")
    .some((part) => (part.split(";")[0] ?? "").trim().toLowerCase() === "text/event-stream");
}
