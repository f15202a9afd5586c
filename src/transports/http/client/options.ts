import type { HttpAuthProvider } from "./auth.js";
import type { HttpFlavour } from "./era.js";

/** Where extra request headers come from: fixed, or asked for before each request. */
export type HeaderSource =
  | Record<string, string>
  | (() => Record<string, string> | Promise<Record<string, string>>);

export interface HttpClientTransportOptions {
  /**
   * The fetch to use (proxies, auth wrappers, tests): then every request goes through it.
   * Default: POSTs (modern, and a legacy session's POSTs and DELETE) go over node:http(s) with
   * a keep-alive agent the transport owns (closed with it); the legacy GET streams and the
   * HTTP+SSE transport use globalThis.fetch.
   */
  fetch?: typeof fetch;
  /** Without `fetch`: connections the POSTs may open at once. Default 256. */
  maxSockets?: number;
  /** Extra headers on every HTTP request; MCP headers take precedence. */
  headers?: HeaderSource;
  /**
   * Authorization for every request (`bearerToken(...)` here, or the OAuth client of
   * `mcpwire/auth`): its headers go on each request, and a 401/403 answer is retried once when
   * the provider says so.
   */
  auth?: HttpAuthProvider;
  /** Tool name → inputSchema, for `Mcp-Param-*` headers before any tools/list was seen. */
  toolHeaderSchemas?: Record<string, unknown>;
  /** `MCP-Protocol-Version` for a modern message whose `_meta` names none. */
  protocolVersion?: string;
  /** Dropped tools and other oddities worth a log line. Default: console.warn. */
  onWarning?: (message: string) => void;
  /** Flavour per endpoint; shared process-wide by default. */
  flavourCache?: Map<string, HttpFlavour>;
  /** Legacy stream reconnection delay when the server gave no `retry`. Default 1000 ms. */
  reconnectDelayMs?: number;
  /** Legacy stream reconnection attempts in a row before giving up. Default 5. */
  maxReconnects?: number;
}
