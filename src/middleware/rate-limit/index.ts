/**
 * Rate limiting per caller: at most `limit` requests per `windowMs` for each key (the
 * authenticated principal, else the legacy session, else the remote address). Over it, the
 * request is refused before its handler with RATE_LIMITED and when to retry.
 */
import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { Middleware, MiddlewareContext } from "../../protocol/middleware.js";
import { MemoryRateLimitStore, type RateLimitStore } from "./store.js";

export {
  MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
  type RateLimitDecision,
  type RateLimitStore,
} from "./store.js";

/**
 * The error code of a refusal. MCP reserves -32000 to -32099 (2026-07-28 basic/index.mdx) and
 * asks new codes to sit outside the JSON-RPC range, hence one of our own, 429 for the HTTP status.
 */
export const RATE_LIMITED = -31429;

export interface RateLimitOptions {
  /** Requests allowed per window and key. */
  limit: number;
  /** The window, in ms. */
  windowMs: number;
  /**
   * The key a request counts against; undefined lets it through uncounted. Default: the
   * principal's identity, else the legacy session, else the remote address, else one shared
   * "anonymous" key.
   */
  key?: (ctx: MiddlewareContext) => string | undefined;
  /** Where counters live (default a MemoryRateLimitStore of this middleware's own). */
  store?: RateLimitStore;
  /** Which methods count (default every request; notifications never). */
  methods?: readonly string[];
}

export function defaultRateLimitKey(ctx: MiddlewareContext): string {
  const principal = ctx.principal;
  if (typeof principal === "string") return `principal:${principal}`;
  if (typeof principal === "object" && principal !== null) {
    const identity = (principal as { toJSON?: () => unknown }).toJSON?.() ?? principal;
    return `principal:${JSON.stringify(identity)}`;
  }
  if (ctx.sessionId !== undefined) return `session:${ctx.sessionId}`;
  if (ctx.remote?.address !== undefined) return `address:${ctx.remote.address}`;
  return "anonymous";
}

/** The middleware: `server.use(rateLimit({ limit: 60, windowMs: 60_000 }))`. */
export function rateLimit(options: RateLimitOptions): Middleware {
  const { limit, windowMs } = options;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new TypeError("rateLimit: limit must be a positive integer");
  }
  if (!Number.isSafeInteger(windowMs) || windowMs < 1) {
    throw new TypeError("rateLimit: windowMs must be a positive integer (ms)");
  }
  const store = options.store ?? new MemoryRateLimitStore();
  const keyOf = options.key ?? defaultRateLimitKey;
  const methods = options.methods === undefined ? undefined : new Set(options.methods);
  return async (ctx, next) => {
    if (ctx.notification || (methods !== undefined && !methods.has(ctx.method))) return next();
    const key = keyOf(ctx);
    if (key === undefined) return next();
    const decision = await store.consume(key, limit, windowMs);
    if (!decision.allowed) {
      const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new JsonRpcError(
        RATE_LIMITED,
        `Rate limit reached (${limit} requests per ${windowMs} ms); retry in ${seconds} s`,
        { retryAfterMs: decision.retryAfterMs, limit, windowMs },
      );
    }
    return next();
  };
}
