/**
 * A legacy Streamable HTTP cluster on Redis: pass the result as `legacy.cluster` to every
 * instance (same Redis, same prefix). Records, events, bus and leases as in docs/cluster.md.
 */
import type { LegacyCluster } from "../transports/http/legacy/cluster.js";
import { RedisClusterBus } from "./bus.js";
import type { RedisClientLike, RedisNamespaceOptions } from "./client.js";
import { RedisCommands } from "./commands.js";
import { RedisEventStore, type RedisEventStoreOptions } from "./event-store.js";
import { RedisInstanceLeases } from "./leases.js";
import { RedisSessionRecords } from "./session-records.js";

export interface RedisLegacyClusterOptions extends RedisNamespaceOptions, RedisEventStoreOptions {
  /** This instance's id (default: random). */
  instanceId?: string;
  /** See LegacyCluster.leaseMs (default 10 s). */
  leaseMs?: number;
  /** See LegacyCluster.recordCheckMs (default 5 s). */
  recordCheckMs?: number;
}

export function redisLegacyCluster(
  client: RedisClientLike,
  options: RedisLegacyClusterOptions = {},
): LegacyCluster {
  const commands = new RedisCommands(client, options);
  const events = new RedisEventStore(commands, options);
  return {
    instanceId: options.instanceId,
    leaseMs: options.leaseMs,
    recordCheckMs: options.recordCheckMs,
    records: new RedisSessionRecords(commands),
    events,
    bus: new RedisClusterBus(commands),
    leases: new RedisInstanceLeases(commands),
    close: () => events.close(),
  };
}
