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
export function ttlOf(result: JsonObject): number {
  const ttl = result.ttlMs;
  return typeof ttl === "number" && Number.isFinite(ttl) && ttl > 0 ? ttl : 0;
}

/**
 * Fresh results keyed by method + params (minus `_meta`). One client is one authorization
 * context, so "private" and "public" entries are both served; the scope is kept for callers
 * that share results further.
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
  get(method: string, params: JsonObject | undefined): JsonObject | undefined {
    const key = cacheKey(method, params);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() >= entry.expiresAt) {
      this.entries.delete(key);
      return undefined;
    }
    return structuredClone(entry.result);
  }

  /** The scope recorded for a fresh entry. */
  scopeOf(method: string, params: JsonObject | undefined): "public" | "private" | undefined {
    return this.entries.get(cacheKey(method, params))?.cacheScope;
  }

  /** Stores a result if its ttlMs makes it fresh for a while. */
  set(method: string, params: JsonObject | undefined, result: JsonObject): void {
    const ttl = ttlOf(result);
    if (ttl === 0) return;
    const key = cacheKey(method, params);
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    const scope = result.cacheScope;
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

  private invalidate(matches: (entry: Entry) => boolean): void {
    for (const [key, entry] of this.entries) {
      if (matches(entry)) this.entries.delete(key);
    }
  }
}

export function cacheKey(method: string, params: JsonObject | undefined): string {
  return `${method} ${stableStringify(keyParams(params))}`;
}
