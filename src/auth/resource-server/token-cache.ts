/**
 * The verified tokens a protected resource remembers, looked up on every request. The header's
 * token is a fresh string each time, so a Map keyed by the whole token hashes all of it (some
 * 350 characters for a typical JWT, ~4,000 instructions) per request. The lookup goes first
 * through the token's last TAIL characters (a JWT's signature: as good as random) and compares
 * the whole token with the remembered one; only when that misses (another token with the same
 * tail, as opaque formats with a fixed suffix have) is the whole token hashed.
 */

/** Characters of the token's end that key the quick lookup. */
const TAIL = 16;

interface Entry<T> {
  readonly token: string;
  readonly value: T;
  /** ms since the epoch after which the token is checked again. */
  readonly until: number;
}

export class TokenCache<T> {
  /** Every remembered token; Map order is insertion order (the first is the oldest). */
  private readonly byToken = new Map<string, Entry<T>>();
  /** The latest remembered token of each tail. */
  private readonly byTail = new Map<string, Entry<T>>();
  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  /** The value remembered for exactly this token, unless its time is up. */
  get(token: string): T | undefined {
    let entry = this.byTail.get(token.slice(-TAIL));
    if (entry === undefined || entry.token !== token) entry = this.byToken.get(token);
    if (entry === undefined) return undefined;
    if (entry.until > Date.now()) return entry.value;
    this.forget(entry);
    return undefined;
  }

  /** Remembers `value` for `token` until `until` (ms since the epoch), forgetting the oldest if full. */
  set(token: string, value: T, until: number): void {
    const known = this.byToken.get(token);
    if (known !== undefined) this.forget(known);
    else if (this.byToken.size >= this.max) {
      const oldest = this.byToken.values().next().value;
      if (oldest !== undefined) this.forget(oldest);
    }
    const entry: Entry<T> = { token, value, until };
    this.byToken.set(token, entry);
    this.byTail.set(token.slice(-TAIL), entry);
  }

  private forget(entry: Entry<T>): void {
    this.byToken.delete(entry.token);
    const tail = entry.token.slice(-TAIL);
    if (this.byTail.get(tail) === entry) this.byTail.delete(tail);
  }
}
