import { randomBytes } from "node:crypto";
import type { RedisClientLike, RedisNamespaceOptions } from "./client.js";
import { RedisCommands, RedisScript } from "./commands.js";

/** Makes the first key if there is none (one atomic step: racing instances agree), then reads all. */
const KEYS_OR_FIRST = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('RPUSH', KEYS[1], ARGV[1]) end
return redis.call('LRANGE', KEYS[1], 0, -1)`);

/**
 * The MRTR requestState keys of a cluster, shared through Redis (`<prefix>request-state-keys`,
 * a list, newest first), for McpServerOptions.mrtr.secret. The first instance to start makes
 * one random 256-bit key; every instance reads the same list at start-up. They are stored in
 * clear: whoever can read that Redis key can forge requestState for this cluster.
 *
 * Rotation: push a new key at the head
 * (`redis-cli LPUSH mcpwire:request-state-keys "$(openssl rand -base64 32)"`) and restart the
 * instances one by one: they sign with the newest key and still accept the older ones. Once
 * every instance has restarted and the requestState lifetime (mrtr.ttlMs, default 10 minutes)
 * has passed, drop the old key (`LTRIM mcpwire:request-state-keys 0 0`) and restart again.
 */
export async function redisRequestStateKeys(
  client: RedisClientLike,
  options: RedisNamespaceOptions = {},
): Promise<string[]> {
  const commands = new RedisCommands(client, options);
  const fresh = randomBytes(32).toString("base64");
  const keys = await commands.eval(KEYS_OR_FIRST, [commands.key("request-state-keys")], [fresh]);
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === "string")) {
    throw new Error("mcpwire/redis: the request-state-keys list in Redis is not a list of keys");
  }
  for (const key of keys) {
    if (Buffer.byteLength(key) < 16) {
      throw new Error("mcpwire/redis: a key in request-state-keys is shorter than 16 bytes");
    }
  }
  return keys;
}
