/**
 * Where a resource server remembers the DPoP proofs it accepted (RFC 9449 §11.1: a proof is
 * good once). In this process by default; the instances of a cluster must share one
 * (mcpwire/redis's RedisDpopReplayCache), or a proof refused on one instance is accepted on
 * another.
 *
 * It lives with the HTTP binding, below both mcpwire/auth (which checks proofs) and
 * mcpwire/redis (which shares them), so neither subpath imports the other.
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
