import { createHash } from "node:crypto";
import type { RedisClientLike, RedisNamespaceOptions } from "./client.js";
import { RedisCommands, RedisScript } from "./commands.js";

/**
 * Rate-limit counters shared by the instances of a cluster (`rateLimit({ store })` from
 * mcpwire/middleware): one key per caller and window (`<prefix>ratelimit:<hash of key>`),
 * counted and given its expiry in one script, so the window is the same on every instance.
 * A small script on our own client rather than rate-limiter-flexible: this subpath takes any
 * client with `sendCommand`, and a fixed window is one INCR and one PEXPIRE.
 * While Redis is unreachable a counted request fails (RedisUnavailableError) rather than go
 * uncounted.
 */
const CONSUME = new RedisScript(`
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`);

/** Structurally mcpwire/middleware's RateLimitStore (this subpath does not import that one). */
export class RedisRateLimitStore {
  private readonly commands: RedisCommands;

  constructor(client: RedisClientLike, options: RedisNamespaceOptions = {}) {
    this.commands = new RedisCommands(client, options);
  }

  async consume(
    key: string,
    limit: number,
    windowMs: number,
  ): Promise<{ allowed: boolean; remaining: number; retryAfterMs: number }> {
    // The key may hold a peer's session id or a principal: hashed, so its length is ours.
    const digest = createHash("sha256").update(`${limit}/${windowMs}/${key}`).digest("base64url");
    const reply = await this.commands.eval(
      CONSUME,
      [this.commands.key(`ratelimit:${digest}`)],
      [String(windowMs)],
    );
    const [count, ttl] = reply as [number, number];
    if (count > limit) return { allowed: false, remaining: 0, retryAfterMs: ttl };
    return { allowed: true, remaining: limit - count, retryAfterMs: ttl };
  }
}
