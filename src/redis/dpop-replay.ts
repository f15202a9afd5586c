import { createHash } from "node:crypto";
import type { DpopReplayCache } from "../transports/http/dpop-replay-cache.js";
import type { RedisClientLike, RedisNamespaceOptions } from "./client.js";
import { RedisCommands } from "./commands.js";

/**
 * Used DPoP proofs shared by the instances of a cluster (protectResource's `dpop.replayCache`):
 * one key per proof (`<prefix>dpop:<hash of thumbprint and jti>`), written with SET NX and an
 * expiry at the proof's last acceptable moment, so exactly one instance accepts a proof.
 * While Redis is unreachable a DPoP request fails (RedisUnavailableError) rather than skip the
 * check.
 */
export class RedisDpopReplayCache implements DpopReplayCache {
  private readonly commands: RedisCommands;

  constructor(client: RedisClientLike, options: RedisNamespaceOptions = {}) {
    this.commands = new RedisCommands(client, options);
  }

  async firstUse(key: string, expiresAtMs: number): Promise<boolean> {
    // The key's parts come from the client (jti): hashed, so its length and bytes are ours.
    const name = this.commands.key(`dpop:${createHash("sha256").update(key).digest("base64url")}`);
    const ttlMs = Math.max(1, Math.ceil(expiresAtMs - Date.now()));
    const reply = await this.commands.send(["SET", name, "1", "NX", "PX", String(ttlMs)]);
    return reply === "OK";
  }
}
