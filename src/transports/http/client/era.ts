/**
 * What an HTTP failure says about the server's era (2026-07-28 streamable-http.mdx, "Backward
 * Compatibility"). A JSON-RPC error body is the server speaking: it is delivered upward as that
 * request's reply and the client's `server/discover` probe reads it (a modern code means modern,
 * anything else legacy). A 400/404/405 *without* such a body is the transport's own evidence of a
 * legacy server; it reaches the client as an HttpStatusError tagged `eraSignal: "legacy"`, which
 * `probeEra` (src/client/era-detection.ts) honours. 401/403 and every other status carry no era
 * signal: they surface as failures, never as a reason to fall back.
 */
import { LocalError } from "../../../jsonrpc/errors.js";
import type { JsonRpcErrorResponse } from "../../../jsonrpc/types.js";

/** How the transport reaches a server, once known. */
export type HttpFlavour = "modern" | "legacy" | "sse";

/** Flavour per endpoint (origin + path), shared by every transport in the process by default. */
export const sharedFlavourCache = new Map<string, HttpFlavour>();

/** A non-2xx answer that carried no JSON-RPC error this client could deliver. */
export class HttpStatusError extends LocalError {
  override name = "HttpStatusError";
  readonly status: number;
  /** Set only for 400/404/405 without a JSON-RPC body: the server predates modern MCP. */
  readonly eraSignal: "legacy" | undefined;
  /** The response body text (trimmed to 2 KB), for diagnostics. */
  readonly body: string;
  readonly headers: Headers;

  constructor(status: number, body: string, headers: Headers, what: string) {
    const legacy = status === 400 || status === 404 || status === 405;
    const snippet = body.length > 200 ? `${body.slice(0, 200)}…` : body;
    super("transport", `${what}: HTTP ${status}${snippet ? ` ${snippet}` : ""}`);
    this.status = status;
    this.eraSignal = legacy ? "legacy" : undefined;
    this.body = body.slice(0, 2048);
    this.headers = headers;
  }
}

/** The JSON-RPC error response in a failure body, if it holds exactly one. */
export function errorResponseIn(body: string): JsonRpcErrorResponse | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const candidate = parsed as Record<string, unknown>;
  const error = candidate.error as Record<string, unknown> | undefined;
  if (candidate.jsonrpc !== "2.0" || typeof error !== "object" || error === null) return undefined;
  if (typeof error.code !== "number" || typeof error.message !== "string") return undefined;
  return parsed as JsonRpcErrorResponse;
}

/** The cache key for an endpoint URL. */
export function endpointKey(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/**
 * The endpoint is known (from the flavour cache) to predate modern MCP: a modern request is
 * refused locally, with the same legacy era signal a 400 without a JSON-RPC body would give.
 */
export class CachedLegacyError extends LocalError {
  override name = "CachedLegacyError";
  readonly eraSignal = "legacy" as const;

  constructor(key: string, flavour: HttpFlavour) {
    super("transport", `${key} is known to speak ${flavour === "sse" ? "HTTP+SSE" : "legacy"} MCP`);
  }
}
