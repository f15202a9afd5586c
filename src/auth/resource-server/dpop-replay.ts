/**
 * Where a resource server remembers the DPoP proofs it accepted (RFC 9449 §11.1: a proof is
 * good once). In this process by default; the instances of a cluster must share one
 * (mcpwire/redis's RedisDpopReplayCache), or a proof refused on one instance is accepted on
 * another.
 */
export interface DpopReplayCache {
  /**
   * Records `key` (the proof's key thumbprint and jti) until `expiresAtMs` (ms since the
   * epoch, when the proof is too old to be accepted anyway). Resolves false when `key` was
   * recorded before and has not expired: the proof is a replay. Check and record are one
   * atomic step for every instance sharing the cache.
   */
  firstUse(key: string, expiresAtMs: number): boolean | Promise<boolean>;
}

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
