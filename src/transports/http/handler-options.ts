import type { ResponseMode } from "./exchange.js";
import type { HealthOptions } from "./health.js";
import type { LegacyOptions } from "./legacy/legacy-options.js";
import type { LegacySseOptions } from "./legacy/sse-fallback.js";
import type { ResourceGuard } from "./resource-guard.js";
import type { CorsOptions, SecurityOptions } from "./security.js";

/** What createHttpHandler and serveHttp accept (its own file: the endpoint needs it too). */
export interface HttpHandlerOptions extends SecurityOptions {
  /**
   * How a request is answered: "auto" (default) sends JSON unless the handler emits a
   * notification first, then switches to SSE; "json" never streams (notifications are dropped);
   * "sse" always streams.
   */
  responseMode?: ResponseMode;
  /** Methods answered with an SSE stream from the start. Default: subscriptions/listen. */
  streamingMethods?: readonly string[];
  /** Keep-alive comment interval on SSE responses (ms); 0 turns it off. Default 15 s. */
  keepAliveMs?: number;
  /**
   * What one SSE stream may hold for a client that does not read it (bytes). Past it, a modern
   * stream ends (a listen stream with its completion result, any other with an error), a
   * legacy stream's connection closes (the client resumes from Last-Event-ID), an HTTP+SSE
   * session ends. Default 1 MiB. Handlers that await their notifications (progress, logs) are
   * paced by the reader and stay under it; one that fires them off without waiting does not.
   */
  maxStreamBacklogBytes?: number;
  /** Largest accepted request body (bytes). Default 4 MiB. */
  maxBodyBytes?: number;
  /** CORS for browser clients; off by default. `true` uses the defaults. */
  cors?: boolean | CorsOptions;
  /**
   * Authenticates a request: return the principal (it reaches handlers as `principal`), or a
   * Response to send instead (e.g. 401 with WWW-Authenticate). Runs before the body is read
   * (under serveHttp, a modern POST's Request carries method, URL and headers but no body).
   */
  authenticate?(request: Request): unknown | Response | Promise<unknown | Response>;
  /**
   * Makes the endpoint an OAuth protected resource (mcpwire/auth's `protectResource`): its
   * metadata documents are served, every request needs a valid access token, and a request for
   * a tool registered with `scopes` needs them. Instead of `authenticate`, not beside it.
   */
  auth?: ResourceGuard;
  /**
   * Legacy Streamable HTTP (2025-03-26 … 2025-11-25) on the same endpoint: `initialize` opens a
   * session, GET a stream, DELETE ends it. On by default (when the McpServer serves the legacy
   * era); `false` makes the endpoint modern-only (GET and DELETE → 405).
   */
  legacy?: boolean | LegacyOptions;
  /**
   * The deprecated HTTP+SSE transport (2024-11-05) for old clients, on its own paths
   * (default GET /sse and POST /messages). Off by default.
   */
  legacySse?: boolean | LegacySseOptions;
  /**
   * A health check on its own path (default GET /healthz): 200 or 503 with a small JSON body,
   * without authentication (so it must say nothing secret), Host and Origin checked.
   */
  health?: HealthOptions;
}
