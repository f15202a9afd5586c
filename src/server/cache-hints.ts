/**
 * Checks of the caching hints a server is configured with (2026-07-28
 * server/utilities/caching.mdx; schema.json CacheableResult: `ttlMs` an integer >= 0,
 * `cacheScope` one of "public" | "private"). A bad hint is refused when the server is built or
 * the resource registered, not sent on every result for clients to guess at.
 */
import { CACHEABLE_METHODS } from "../protocol/caching.js";
import type { CacheHint } from "../protocol/mcp-types.js";

const SCOPES: ReadonlySet<unknown> = new Set(["public", "private"]);

/**
 * Throws an Error naming the option and `where` it was given unless `hint` is a complete, valid
 * hint. Both fields are required: a result carrying only one of them breaks the spec's MUST
 * (every cacheable result carries both, and every page of a list the same scope).
 */
export function checkCacheHint(hint: unknown, where: string): asserts hint is CacheHint {
  if (typeof hint !== "object" || hint === null || Array.isArray(hint)) {
    throw new Error(`${where}: a caching hint must be an object { ttlMs, cacheScope }`);
  }
  const { ttlMs, cacheScope } = hint as Record<string, unknown>;
  // An integer a JSON peer reads back exactly; the schema says "integer", minimum 0.
  if (typeof ttlMs !== "number" || !Number.isSafeInteger(ttlMs) || ttlMs < 0) {
    throw new Error(
      `${where}: ttlMs must be a non-negative integer (milliseconds), got ${describe(ttlMs)}`,
    );
  }
  if (!SCOPES.has(cacheScope)) {
    throw new Error(
      `${where}: cacheScope must be "public" or "private", got ${describe(cacheScope)}`,
    );
  }
}

/** Checks McpServerOptions.caching: known methods only, each with a valid hint. */
export function checkCachingOptions(caching: unknown): void {
  if (caching === undefined) return;
  if (typeof caching !== "object" || caching === null || Array.isArray(caching)) {
    throw new Error("caching: must be an object keyed by method");
  }
  for (const [method, hint] of Object.entries(caching)) {
    if (!CACHEABLE_METHODS.has(method)) {
      throw new Error(
        `caching: ${JSON.stringify(method)} is not a cacheable method (${[...CACHEABLE_METHODS].join(", ")})`,
      );
    }
    if (hint !== undefined) checkCacheHint(hint, `caching[${JSON.stringify(method)}]`);
  }
}

/**
 * A handler that returned its own `ttlMs` may have left out `cacheScope` or got a field wrong;
 * the result must still carry a valid pair (every cacheable result, every page). The fields
 * that are missing or invalid are taken from `fallback`, and an invalid one is reported.
 */
export function repairHandlerHint(
  method: string,
  result: Record<string, unknown>,
  fallback: CacheHint,
  report: (error: Error) => void,
): void {
  const { ttlMs, cacheScope } = result;
  if (typeof ttlMs !== "number" || !Number.isSafeInteger(ttlMs) || ttlMs < 0) {
    report(
      new Error(
        `${method} handler returned ttlMs ${describe(ttlMs)}, not a non-negative integer; sent ${fallback.ttlMs}`,
      ),
    );
    result.ttlMs = fallback.ttlMs;
  }
  if (!SCOPES.has(cacheScope)) {
    if (cacheScope !== undefined) {
      report(
        new Error(
          `${method} handler returned cacheScope ${describe(cacheScope)}; sent "${fallback.cacheScope}"`,
        ),
      );
    }
    result.cacheScope = fallback.cacheScope;
  }
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "number") return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return typeof value;
  }
}
