/**
 * The Streamable HTTP server core for the 2026-07-28 revision as a web-standard handler:
 * `(Request) => Promise<Response>`. It runs wherever Request/Response do (node:http through
 * node-adapter.ts, Bun, Deno, Workers, Hono, Express).
 */
import { parseMessage } from "../../jsonrpc/classify.js";
import { ErrorCode } from "../../jsonrpc/errors.js";
import { fromUtf8 } from "../../platform/bytes.js";
import { readUpTo } from "../../platform/read-capped.js";
import type { MessageContext } from "../../protocol/transport.js";
import type { McpServerBase } from "../../server/mcp-server.js";
import { HttpEndpoint, rpcErrorReply } from "./endpoint.js";
import { toResponse, WebReplySink } from "./exchange.js";
import type { HttpHandlerOptions } from "./handler-options.js";
import { DEFAULT_HEALTH_PATH, healthResponse } from "./health.js";
import { SseFallback } from "./legacy/sse-fallback.js";
import { type HeaderPairs, headersOf, preflightResponse, WebRequestView } from "./security.js";

export type { HttpHandlerOptions };

export interface HttpHandler {
  handle(request: Request): Promise<Response>;
  /** Paths besides the MCP endpoint that this handler serves (the HTTP+SSE ones). */
  readonly extraPaths: readonly string[];
  /** Ends every open response and disconnects from the McpServer. */
  close(): Promise<void>;
}

/** The endpoint behind each handler createHttpHandler made, for the node:http fast path. */
const endpoints = new WeakMap<HttpHandler, HttpEndpoint>();

/** The shared endpoint of a handler made by createHttpHandler (undefined for any other). */
export function endpointOf(handler: HttpHandler): HttpEndpoint | undefined {
  return endpoints.get(handler);
}

export function createHttpHandler(
  server: McpServerBase,
  options: HttpHandlerOptions = {},
): HttpHandler {
  const endpoint = new HttpEndpoint(server, options);
  const { cors, legacy } = endpoint;
  const sseOptions =
    options.legacySse && server.legacyEnabled
      ? options.legacySse === true
        ? {}
        : options.legacySse
      : undefined;
  const fallback = sseOptions
    ? new SseFallback(server, sseOptions, endpoint.keepAliveMs, endpoint.maxBacklogBytes)
    : undefined;
  const methods = legacy ? ["GET", "POST", "DELETE"] : ["POST"];
  const guard = endpoint.guard;
  const authenticate = guard ? guard.authenticate.bind(guard) : options.authenticate;
  // The HTTP+SSE paths have a resource of their own: their clients want metadata naming it.
  const sseGuard = fallback && guard ? (guard.forPath?.(fallback.ssePath) ?? guard) : undefined;
  const sseAuthenticate = sseGuard ? sseGuard.authenticate.bind(sseGuard) : authenticate;

  const health = options.health;
  const healthPath = health ? (health.path ?? DEFAULT_HEALTH_PATH) : undefined;
  const ownPaths = [
    ...(fallback ? [fallback.ssePath, fallback.messagesPath] : []),
    ...(healthPath ? [healthPath] : []),
  ];
  let extraPaths: readonly string[] = ownPaths;
  let extraFor: readonly string[] | undefined;

  async function handle(request: Request): Promise<Response> {
    // Only the HTTP+SSE fallback and the guard have paths of their own; the adapter already
    // routed the request.
    const pathname = fallback || guard || health ? new URL(request.url).pathname : undefined;
    // The protected resource metadata is public and the same for everyone: any Origin may
    // read it (browser clients discover through it), so the Host/Origin checks do not apply.
    if (guard?.documentPaths.includes(pathname!)) return guard.serveDocument(request);
    if (sseGuard?.documentPaths.includes(pathname!)) return sseGuard.serveDocument(request);
    // Read once: on workerd each read of a Request's getters is a call into the runtime.
    const headers = request.headers;
    const refused = endpoint.refuse(new WebRequestView(request, headers));
    if (refused) return toResponse(refused);
    const method = request.method;
    // As pairs: a Headers object is made only on the paths that need one, not for a modern POST.
    const basePairs = endpoint.baseHeaders(headers);
    if (health && pathname === healthPath) return serveHealth(request, basePairs);

    const fallbackPath =
      fallback && (pathname === fallback.ssePath || pathname === fallback.messagesPath);
    const allowed = !fallbackPath ? methods : pathname === fallback!.ssePath ? ["GET"] : ["POST"];
    if (cors && method === "OPTIONS") return preflightResponse(request, cors, allowed);
    if (!allowed.includes(method)) {
      const allow = (cors ? [...allowed, "OPTIONS"] : allowed).join(", ");
      return methodNotAllowed(basePairs, allow);
    }

    let principal: unknown;
    const check = fallbackPath ? sseAuthenticate : authenticate;
    if (check) {
      const outcome = await check(request);
      if (outcome instanceof Response) return withHeaders(outcome, headersOf(basePairs));
      principal = outcome;
    }
    if (fallback && pathname === fallback.ssePath) {
      return fallback.open(headersOf(basePairs), principal);
    }
    if (legacy && method === "GET") {
      return legacy.get({ request, base: headersOf(basePairs), principal });
    }
    if (legacy && method === "DELETE") {
      return legacy.delete({ request, base: headersOf(basePairs), principal });
    }
    const fallbackPost = fallback !== undefined && pathname === fallback.messagesPath;

    const badMedia = endpoint.checkMediaTypes(headers, basePairs, !fallbackPost);
    if (badMedia) return toResponse(badMedia);
    const body = await readBody(request, headers, endpoint);
    if (body === undefined || body.length > endpoint.maxBodyBytes) {
      return toResponse(endpoint.tooLarge(basePairs));
    }
    const parsed = parseMessage(body);
    if (!parsed.ok) return toResponse(endpoint.unreadable(parsed, basePairs));
    const message = parsed.message;
    const forbidden =
      guard && endpoint.scopeRefusal(principal, message, fallbackPost ? sseGuard : guard);
    if (forbidden) return withHeaders(forbidden, headersOf(basePairs));
    if (fallbackPost) {
      const context = { headers, principal };
      return fallback.post(new URL(request.url), message, context, headersOf(basePairs));
    }
    if (endpoint.wantsLegacy(headers, message)) {
      return legacy!.post({ request, base: headersOf(basePairs), principal }, message);
    }
    const context: MessageContext = { headers, principal };
    const sink = new WebReplySink();
    // The Request itself: its signal is read only if the reply is still pending a turn later.
    const answered = endpoint.serveModern(message, headers, context, basePairs, sink, request);
    return answered ? toResponse(answered) : sink.result();
  }

  /** Health: public (no authentication), read-only. */
  function serveHealth(request: Request, base: HeaderPairs): Promise<Response> | Response {
    const allowed = ["GET", "HEAD"];
    if (request.method === "OPTIONS" && cors) return preflightResponse(request, cors, allowed);
    if (!allowed.includes(request.method)) return methodNotAllowed(base, allowed.join(", "));
    return healthResponse(health!, request.method, headersOf(base));
  }

  const handler: HttpHandler = {
    handle: async (request) => {
      try {
        return await handle(request);
      } catch (error) {
        server.reportError(error instanceof Error ? error : new Error(String(error)));
        return toResponse(rpcErrorReply(null, ErrorCode.InternalError, "Internal error", 500));
      }
    },
    // A getter: serveHttp may give the guard its resource URL (and so its paths) after this.
    get extraPaths() {
      if (guard && guard.documentPaths !== extraFor) {
        extraFor = guard.documentPaths;
        extraPaths = [...ownPaths, ...extraFor, ...(sseGuard?.documentPaths ?? [])];
      }
      return extraPaths;
    },
    // Graceful: open listen streams get their completion result, handlers a moment to stop.
    close: async () => {
      await Promise.all([legacy?.close(), fallback?.close()]);
      await endpoint.connection.session.shutdown();
    },
  };
  endpoints.set(handler, endpoint);
  return handler;
}

/** 405, with the request's base (CORS) headers and the methods the path allows. */
function methodNotAllowed(base: HeaderPairs, allow: string): Response {
  const headers = headersOf(base);
  headers.set("Allow", allow);
  return new Response(null, { status: 405, headers });
}

/** A Response from the authentication hook, with the request's base (CORS) headers added. */
export function withHeaders(response: Response, extra: Headers): Response {
  if ([...extra.keys()].length === 0) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of extra) if (!headers.has(name)) headers.set(name, value);
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/**
 * The body as text, or undefined when it exceeds the limit (checked while reading). Not an
 * async function: the common case is the runtime's own text() promise, one layer fewer.
 */
function readBody(
  request: Request,
  headers: Headers,
  endpoint: HttpEndpoint,
): Promise<string | undefined> | undefined {
  const declared = headers.get("content-length");
  if (endpoint.declaredTooLarge(declared)) return undefined;
  // A declared length within the limit is what the runtime's HTTP server delivers, so the
  // body is read whole: on Bun and Deno, text() skips building a JS ReadableStream, which cost
  // Bun more CPU per request than all of MCP. (A Request made in-process may lie; the caller
  // still refuses a text over the limit: UTF-16 units never outnumber UTF-8 bytes.)
  if (declared !== null) return request.text();
  if (!request.body) return Promise.resolve("");
  // Invalid UTF-8 becomes U+FFFD and then, almost always, a JSON parse error.
  return readUpTo(request.body, endpoint.maxBodyBytes).then((bytes) => bytes && fromUtf8(bytes));
}
