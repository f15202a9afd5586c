/**
 * Where rate-limit counters live: a fixed window per key. The in-memory store serves one
 * process; `RedisRateLimitStore` (mcpwire/redis) shares the counters between instances.
 */

/** What one request's consumption decided. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Requests left in the current window (0 when refused). */
  remaining: number;
  /** Until the window resets, in ms. */
  retryAfterMs: number;
}

export interface RateLimitStore {
  /** Counts one request for `key` in a window of `windowMs`, allowing `limit` per window. */
  consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
}

export interface MemoryRateLimitStoreOptions {
  /**
   * Most keys counted at once (default 100,000). When full, expired windows are dropped, then
   * the oldest: a flood of new keys can reset old counters early, never grow memory unbounded.
   */
  maxKeys?: number;
  /** The clock (ms); tests pass their own. */
  now?: () => number;
}

interface Window {
  count: number;
  resetAt: number;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, Window>();
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    this.maxKeys = options.maxKeys ?? 100_000;
    if (!Number.isSafeInteger(this.maxKeys) || this.maxKeys < 1) {
      throw new TypeError("MemoryRateLimitStore: maxKeys must be a positive integer");
    }
    this.now = options.now ?? Date.now;
  }

  /** How many keys are counted now. */
  get size(): number {
    return this.windows.size;
  }

  async consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const now = this.now();
    let window = this.windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      if (window !== undefined) this.windows.delete(key);
      else if (this.windows.size >= this.maxKeys) this.makeRoom(now);
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    const retryAfterMs = window.resetAt - now;
    if (window.count >= limit) return { allowed: false, remaining: 0, retryAfterMs };
    window.count++;
    return { allowed: true, remaining: limit - window.count, retryAfterMs };
  }

  private makeRoom(now: number): void {
    for (const [key, window] of this.windows) {
      if (window.resetAt <= now) this.windows.delete(key);
    }
    // Still full: the oldest window goes (Map keeps insertion order; renewed windows move back).
    if (this.windows.size >= this.maxKeys) {
      const oldest = this.windows.keys().next();
      if (!oldest.done) this.windows.delete(oldest.value);
    }
  }
}
