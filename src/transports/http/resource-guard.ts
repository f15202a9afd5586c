/**
 * The seam through which an OAuth protected resource (mcpwire/auth's protectResource) guards an
 * HTTP endpoint. It lives in the core so that the endpoint can call it without loading jose or
 * oauth4webapi; the implementation is in the auth subpath.
 */
import type { HeaderSource } from "../../protocol/http-headers.js";

/** What the guard sees of a request: method, absolute URL and headers (no body). */
export interface GuardedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: HeaderSource;
}

export interface ResourceGuard {
  /**
   * Paths (besides the endpoint) the guard answers itself, without credentials: its Protected
   * Resource Metadata documents.
   */
  readonly documentPaths: readonly string[];
  /** Answers a request for one of documentPaths (any method: it decides). */
  serveDocument(request: Request): Response;
  /**
   * The principal behind the request's credentials (it reaches handlers as `principal`), or the
   * Response refusing it (401 or 403 with a WWW-Authenticate challenge, 503 when the token
   * cannot be checked now). Synchronous when the answer is cached.
   */
  authenticate(request: GuardedRequest): unknown | Response | Promise<unknown | Response>;
  /**
   * The 403 insufficient_scope Response when `principal` may not make a request of `method`
   * (whose target, a tool say, was registered as needing `targetScopes`); undefined when it may.
   * Runs after the body is parsed, before anything is served.
   */
  authorize(
    principal: unknown,
    method: string,
    targetScopes: readonly string[] | undefined,
  ): Response | undefined;
  /**
   * Called by serveHttp once it listens, with the endpoint's URL: a guard made without an
   * explicit resource identifier takes this one.
   */
  useEndpointUrl?(url: string): void;
  /**
   * The guard of another path the same handler serves (the deprecated HTTP+SSE stream and its
   * POSTs), for clients that accept metadata only when its `resource` covers the URL they
   * connect to: the same checks, the resource identifier of that path (unless the endpoint's
   * already covers it) and its metadata document. Without it, the endpoint's guard serves it.
   */
  forPath?(path: string): ResourceGuard;
}
