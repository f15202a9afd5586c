import type { DpopReplayCache } from "../../transports/http/dpop-replay-cache.js";

export type { DpopReplayCache };

/** The default: this process only, at most `maxEntries` remembered (the oldest go first). */
export class InMemoryDpopReplayCache implements DpopReplayCache {
  /** key → when it may be forgotten (ms since the epoch); insertion-ordered. */
  private readonly seen = new Map<string, number>();

  constructor(private readonly maxEntries = 100_000) {}

  firstUse(key: string, expiresAtMs: number): boolean {
    const now = Date.now();
    const known = this.seen.get(key);
    if (known !== undefined && known > now) return false;
    this.seen.delete(key);
    // Forget what has aged out (oldest first), then, if still full, the oldest entries.
    for (const [old, expires] of this.seen) {
      if (expires > now && this.seen.size < this.maxEntries) break;
      this.seen.delete(old);
    }
    this.seen.set(key, expiresAtMs);
    return true;
  }
}
