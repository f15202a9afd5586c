import type { JsonObject } from "../jsonrpc/types.js";
import { CACHEABLE_METHODS } from "../protocol/caching.js";
import { stableStringify } from "../protocol/canonical-json.js";

export { stableStringify };

interface Entry {
  method: string;
  params: JsonObject;
  result: JsonObject;
  expiresAt: number;
  cacheScope: "public" | "private" | undefined;
}

/** The params that affect a result: everything but `_meta`. */
function keyParams(params: JsonObject | undefined): JsonObject {
  if (!params) return {};
  const { _meta: _ignored, ...rest } = params;
  return rest;
}

/** ttlMs as the spec wants it read: absent, negative or nonsense means 0 (stale at once). */
function ttlOf(result: JsonObject): number {
  const ttl = result.ttlMs;
  return typeof ttl === "number" && Number.isFinite(ttl) && ttl > 0 ? ttl : 0;
}

/**
 * Fresh results keyed by method + params (minus `_meta`). A "public" result is served to any
 * caller; any other (marked "private", or unmarked by an older server) only within the
 * authorization context it was fetched in: `partition`, a digest of the credentials (see
 * Transport.authorizationContext), so a client whose token changes is not served another
 * token's results (2026-07-28 server/utilities/caching.mdx, "Cache Scope Field").
 */
export class ResultCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: { maxEntries?: number; now?: () => number } = {}) {
    this.maxEntries = options.maxEntries ?? 1000;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Whether a request may be served from or stored in the cache at all. */
  static cacheable(method: string, params: JsonObject | undefined): boolean {
    if (!CACHEABLE_METHODS.has(method)) return false;
    // Retries of multi round-trip requests depend on inputs that are not in the key.
    return !(params && ("inputResponses" in params || "requestState" in params));
  }

  /** A fresh result (a copy, so callers cannot alter the cached one), or undefined. */
  get(method: string, params: JsonObject | undefined, partition?: string): JsonObject | undefined {
    const entry = this.fresh(method, params, partition);
    return entry ? structuredClone(entry.result) : undefined;
  }

  /** The scope recorded for a fresh entry this partition may be served. */
  scopeOf(
    method: string,
    params: JsonObject | undefined,
    partition?: string,
  ): "public" | "private" | undefined {
    return this.fresh(method, params, partition)?.cacheScope;
  }

  /** Stores a result, fetched with `partition`'s credentials, if its ttlMs makes it fresh. */
  set(
    method: string,
    params: JsonObject | undefined,
    result: JsonObject,
    partition?: string,
  ): void {
    const ttl = ttlOf(result);
    if (ttl === 0) return;
    const shared = cacheKey(method, params);
    const own = privateKey(shared, partition);
    this.entries.delete(shared);
    this.entries.delete(own);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    const scope = result.cacheScope;
    const key = scope === "public" ? shared : own;
    this.entries.set(key, {
      method,
      params: keyParams(params),
      result: structuredClone(result),
      expiresAt: this.now() + ttl,
      cacheScope: scope === "public" || scope === "private" ? scope : undefined,
    });
  }

  /** Drops every entry of these methods (all pages). */
  invalidateMethods(...methods: string[]): void {
    this.invalidate((entry) => methods.includes(entry.method));
  }

  /** Drops the cached reads of one resource. */
  invalidateResource(uri: string): void {
    this.invalidate((entry) => entry.method === "resources/read" && entry.params.uri === uri);
  }

  clear(): void {
    this.entries.clear();
  }

  /** The fresh entry this partition may be served: a public one, else its own; drops stale ones. */
  private fresh(
    method: string,
    params: JsonObject | undefined,
    partition: string | undefined,
  ): Entry | undefined {
    const shared = cacheKey(method, params);
    for (const key of [shared, privateKey(shared, partition)]) {
      const entry = this.entries.get(key);
      if (!entry) continue;
      if (this.now() < entry.expiresAt) return entry;
      this.entries.delete(key);
    }
    return undefined;
  }

  private invalidate(matches: (entry: Entry) => boolean): void {
    for (const [key, entry] of this.entries) {
      if (matches(entry)) this.entries.delete(key);
    }
  }
}

export function cacheKey(method: string, params: JsonObject | undefined): string {
  return `${method} ${stableStringify(keyParams(params))}`;
}

/** Where a non-public result lives: the shared key plus the credentials' digest ("" for none). */
function privateKey(shared: string, partition: string | undefined): string {
  return `${shared}\u0000${partition ?? ""}`;
}
