/**
 * mcpwire/redis: Redis-backed pieces for running several mcpwire server instances as one
 * (see docs/cluster.md). Needs `redis` (node-redis) installed beside mcpwire: you pass your own
 * connected client; nothing here imports `redis`.
 *
 * @module mcpwire/redis
 */

export { RedisClusterBus } from "./bus.js";
export { RedisChannels, type RedisMessageListener } from "./channels.js";
export {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_PREFIX,
  type RedisClientLike,
  type RedisNamespaceOptions,
} from "./client.js";
export { RedisCommands, RedisScript, RedisUnavailableError } from "./commands.js";
export { RedisDpopReplayCache } from "./dpop-replay.js";
export { RedisEventStore, type RedisEventStoreOptions } from "./event-store.js";
export { RedisInstanceLeases } from "./leases.js";
export { type RedisLegacyClusterOptions, redisLegacyCluster } from "./legacy-cluster.js";
export { RedisRateLimitStore } from "./rate-limit-store.js";
export { redisRequestStateKeys } from "./request-state-keys.js";
export { RedisSessionRecords } from "./session-records.js";
export { RedisSubscriptionEventSource } from "./subscription-events.js";
export { RedisTaskRelay } from "./task-relay.js";
export { RedisTaskRunners, type RedisTaskRunnersOptions } from "./task-runners.js";
export { RedisTaskStore, type RedisTaskStoreOptions } from "./task-store.js";
export { RedisTopic, type RedisTopicOptions } from "./topic.js";
