/**
 * The Streamable HTTP server core for the 2026-07-28 revision as a web-standard handler:
 * `(Request) => Promise<Response>`. It runs wherever Request/Response do (node:http through
 * node-adapter.ts, Bun, Deno, Workers, Hono, Express).
 */
import { errorResponseFor, parseMessage } from "../../jsonrpc/classify.js";
import { ErrorCode, isPlainObject, type JsonRpcError } from "../../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcMessage } from "../../jsonrpc/types.js";
import { META } from "../../protocol/meta.js";
import { isLegacyVersion } from "../../protocol/versions.js";
import type { McpServer } from "../../server/mcp-server.js";
import { Exchange, jsonResponse, type ResponseMode, statusForError } from "./exchange.js";
import { HEADER } from "./headers.js";
import { LegacyHandler, type LegacyOptions } from "./legacy/legacy-handler.js";
import { type LegacySseOptions, SseFallback } from "./legacy/sse-fallback.js";
import { checkModernRequest } from "./request-checks.js";
import {
  type CorsOptions,
  corsHeaders,
  preflightResponse,
  type SecurityOptions,
  securityFailure,
} from "./security.js";
import { HttpServerTransport } from "./server-transport.js";

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
  /** Largest accepted request body (bytes). Default 4 MiB. */
  maxBodyBytes?: number;
  /** CORS for browser clients; off by default. `true` uses the defaults. */
  cors?: boolean | CorsOptions;
  /**
   * Authenticates a request: return the principal (it reaches handlers as `principal`), or a
   * Response to send instead (e.g. 401 with WWW-Authenticate). Runs before the body is read.
   */
  authenticate?(request: Request): unknown | Response | Promise<unknown | Response>;
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
}

export interface HttpHandler {
  handle(request: Request): Promise<Response>;
  /** Paths besides the MCP endpoint that this handler serves (the HTTP+SSE ones). */
  readonly extraPaths: readonly string[];
  /** Ends every open response and disconnects from the McpServer. */
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
const DEFAULT_KEEP_ALIVE_MS = 15_000;

export function createHttpHandler(
  server: McpServer,
  options: HttpHandlerOptions = {},
): HttpHandler {
  const legacyOptions =
    options.legacy === false || !server.legacyEnabled
      ? undefined
      : options.legacy === true || options.legacy === undefined
        ? {}
        : options.legacy;
  if (!server.modernEnabled && !legacyOptions) {
    throw new Error("createHttpHandler: the McpServer serves no era this handler has turned on");
  }
  const transport = new HttpServerTransport();
  const connection = server.connect(transport);
  const cors = options.cors === true ? {} : options.cors || undefined;
  const streaming = new Set(options.streamingMethods ?? ["subscriptions/listen"]);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  const legacy = legacyOptions
    ? new LegacyHandler(server, legacyOptions, {
        responseMode: options.responseMode ?? "auto",
        keepAliveMs,
      })
    : undefined;
  const sseOptions =
    options.legacySse && server.legacyEnabled
      ? options.legacySse === true
        ? {}
        : options.legacySse
      : undefined;
  const fallback = sseOptions ? new SseFallback(server, sseOptions, keepAliveMs) : undefined;
  const methods = legacy ? ["GET", "POST", "DELETE"] : ["POST"];
  const checkContext = {
    supportedVersions: server.modernVersions,
    toolInputSchema: (name: string) => server.toolDefinition(name)?.inputSchema,
  };

  async function handle(request: Request): Promise<Response> {
    const refused = securityFailure(request, options);
    if (refused) return rpcError(null, ErrorCode.InvalidRequest, `Forbidden: ${refused}`, 403);
    const origin = request.headers.get("origin");
    const base = cors ? corsHeaders(origin, cors) : new Headers();

    // Only the HTTP+SSE fallback has paths of its own; the adapter already routed the request.
    const pathname = fallback ? new URL(request.url).pathname : undefined;
    const fallbackPath =
      fallback && (pathname === fallback.ssePath || pathname === fallback.messagesPath);
    const allowed = !fallbackPath ? methods : pathname === fallback!.ssePath ? ["GET"] : ["POST"];
    if (request.method === "OPTIONS" && cors) return preflightResponse(request, cors, allowed);
    if (!allowed.includes(request.method)) {
      const headers = new Headers(base);
      headers.set("Allow", (cors ? [...allowed, "OPTIONS"] : allowed).join(", "));
      return new Response(null, { status: 405, headers });
    }

    let principal: unknown;
    if (options.authenticate) {
      const outcome = await options.authenticate(request);
      if (outcome instanceof Response) return withHeaders(outcome, base);
      principal = outcome;
    }
    if (fallback && pathname === fallback.ssePath) return fallback.open(base, principal);
    if (legacy && request.method === "GET") return legacy.get({ request, base, principal });
    if (legacy && request.method === "DELETE") return legacy.delete({ request, base, principal });
    const fallbackPost = fallback !== undefined && pathname === fallback.messagesPath;

    // Old HTTP+SSE clients predate the Accept rule.
    if (!fallbackPost && !acceptsBoth(request.headers.get("accept"))) {
      return rpcError(
        null,
        ErrorCode.InvalidRequest,
        "Not Acceptable: Accept must list application/json and text/event-stream",
        406,
        base,
      );
    }
    if (!isJsonContentType(request.headers.get("content-type"))) {
      return rpcError(
        null,
        ErrorCode.InvalidRequest,
        "Unsupported Media Type: Content-Type must be application/json",
        415,
        base,
      );
    }
    const body = await readBody(request, maxBody);
    if (body === undefined) {
      return rpcError(
        null,
        ErrorCode.InvalidRequest,
        `Payload Too Large: the limit is ${maxBody} bytes`,
        413,
        base,
      );
    }
    const parsed = parseMessage(body);
    if (!parsed.ok) {
      return jsonResponse(errorResponseFor(parsed), 400, base);
    }
    const message = parsed.message;
    if (fallbackPost) {
      const context = { headers: request.headers, principal };
      return fallback.post(new URL(request.url), message, context, base);
    }
    if (legacy && (!server.modernEnabled || !claimsModern(request.headers, message))) {
      return legacy.post({ request, base, principal }, message);
    }
    const context = { signal: request.signal, headers: request.headers, principal };
    if (!("method" in message)) {
      return rpcError(null, ErrorCode.InvalidRequest, "Clients may not POST responses", 400, base);
    }
    if (!("id" in message)) {
      // Cancellation on HTTP is closing the stream; a cancelled notification could only name
      // our internal ids, which are none of the client's business.
      if (message.method !== "notifications/cancelled") {
        transport.deliverNotification(message, context);
      }
      return new Response(null, { status: 202, headers: base });
    }

    if (message.method === "initialize") {
      // Legacy sessions are not served here; initialize would switch the shared connection.
      return rpcError(
        message.id,
        ErrorCode.MethodNotFound,
        `Method not found: initialize (this endpoint speaks ${server.modernVersions.join(", ")})`,
        404,
        base,
      );
    }
    const invalid = checkModernRequest(request.headers, message, checkContext);
    if (invalid) return errorAsResponse(message.id, invalid, base);

    const exchange = new Exchange(message.id, {
      mode: options.responseMode ?? "auto",
      keepAliveMs: options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
      baseHeaders: base,
      requestSignal: request.signal,
    });
    if (streaming.has(message.method) || options.responseMode === "sse") exchange.openStream();
    transport.deliverRequest(message, exchange, { ...context, signal: exchange.signal });
    return exchange.response;
  }

  return {
    handle: async (request) => {
      try {
        return await handle(request);
      } catch (error) {
        server.reportError(error instanceof Error ? error : new Error(String(error)));
        return rpcError(null, ErrorCode.InternalError, "Internal error", 500);
      }
    },
    extraPaths: fallback ? [fallback.ssePath, fallback.messagesPath] : [],
    // Graceful: open listen streams get their completion result, handlers a moment to stop.
    close: async () => {
      await Promise.all([legacy?.close(), fallback?.close()]);
      await connection.session.shutdown();
    },
  };
}

/**
 * Whether a POST belongs to the modern (2026-07-28) path: `_meta` with a protocol version says
 * yes (legacy clients never send that key); else a legacy MCP-Protocol-Version header, or none,
 * says no; any other version header says yes unless the request names a legacy session (whose
 * handler then refuses the version).
 */
function claimsModern(headers: Headers, message: JsonRpcMessage): boolean {
  const params = "method" in message ? message.params : undefined;
  if (params && isPlainObject(params._meta) && META.protocolVersion in params._meta) return true;
  const version = headers.get(HEADER.protocolVersion)?.trim();
  if (version === undefined || version === "" || isLegacyVersion(version)) return false;
  return headers.get(HEADER.sessionId) === null;
}

function rpcError(
  id: JsonRpcId | null,
  code: number,
  message: string,
  status: number,
  headers?: Headers,
): Response {
  return jsonResponse({ jsonrpc: "2.0", id, error: { code, message } }, status, headers);
}

function errorAsResponse(id: JsonRpcId, error: JsonRpcError, headers: Headers): Response {
  const status = statusForError(error.code);
  return jsonResponse(
    { jsonrpc: "2.0", id, error: error.toJSON() },
    status === 200 ? 400 : status,
    headers,
  );
}

function withHeaders(response: Response, extra: Headers): Response {
  if ([...extra.keys()].length === 0) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of extra) if (!headers.has(name)) headers.set(name, value);
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** Media types of an Accept header, without parameters, lowercased. */
function mediaRanges(accept: string | null): string[] {
  if (!accept) return [];
  return accept.split(",").map((part) => (part.split(";")[0] ?? "").trim().toLowerCase());
}

// The spec wants both listed by name; wildcards such as curl's default do not count.
function acceptsBoth(accept: string | null): boolean {
  const ranges = mediaRanges(accept);
  return ranges.includes("application/json") && ranges.includes("text/event-stream");
}

function isJsonContentType(contentType: string | null): boolean {
  return mediaRanges(contentType)[0] === "application/json";
}

/** The body as text, or undefined when it exceeds `limit` bytes (checked while reading). */
async function readBody(request: Request, limit: number): Promise<string | undefined> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) return undefined;
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  // Invalid UTF-8 becomes U+FFFD and then, almost always, a JSON parse error.
  return Buffer.concat(chunks, total).toString("utf8");
}
