/**
 * `--redis redis://HOST:PORT` for the everything server: every instance started with the same
 * Redis URL behaves as one server behind a load balancer (docs/cluster.md). This is the one
 * place that wires the mcpwire/redis pieces into the server's and the HTTP endpoint's options.
 */

import { randomBytes } from "node:crypto";
import { createClient } from "redis";
import {
  RedisSubscriptionEventSource,
  RedisTaskRelay,
  RedisTaskRunners,
  RedisTaskStore,
  redisLegacyCluster,
  redisRequestStateKeys,
} from "../src/redis/index.js";
import type { McpServerOptions } from "../src/server/server-core.js";
import type { LegacyOptions } from "../src/transports/http/legacy/legacy-options.js";
import type { ServeHttpOptions } from "../src/transports/http/node-adapter.js";

export interface ClusterSetup {
  /** Merged into the McpServer's options. */
  server: Partial<McpServerOptions>;
  /** Merged into serveHttp's options. */
  http: Omit<Partial<ServeHttpOptions>, "legacy">;
  /** Merged into serveHttp's `legacy` options (legacy sessions over shared state). */
  legacy: Partial<LegacyOptions>;
  /** Stops hearing the cluster and closes the Redis connections. */
  close(): Promise<void>;
}

/** Connects to Redis (rejecting if it is not there) and builds the shared pieces. */
export async function clusterOptions(redisUrl: string, prefix?: string): Promise<ClusterSetup> {
  let started = false;
  const client = createClient({
    url: redisUrl,
    disableOfflineQueue: true,
    socket: {
      // Not there at start: fail (the caller exits); lost later: reconnect with backoff.
      reconnectStrategy: (retries: number, cause: Error) =>
        started ? Math.min(50 * 2 ** retries, 2000) : cause,
    },
  });
  const report = (error: Error) => process.stderr.write(`redis: ${error.message}\n`);
  // Said once per outage, not once per reconnect attempt.
  let down = false;
  client.on("error", (error: Error) => {
    // Before start-up the error is connect()'s rejection, reported by the caller.
    if (down || !started) return;
    down = true;
    report(new Error(`connection lost (${error.message}); reconnecting`));
  });
  client.on("ready", () => {
    if (!down) return;
    down = false;
    process.stderr.write("redis: reconnected\n");
  });
  await client.connect();
  started = true;
  const shared = { onError: report, ...(prefix !== undefined ? { prefix } : {}) };
  const events = new RedisSubscriptionEventSource(client, shared);
  const relay = new RedisTaskRelay(client, shared);
  const store = new RedisTaskStore(client, shared);
  const runners = new RedisTaskRunners(client, shared);
  const secret = await redisRequestStateKeys(client, shared);
  await Promise.all([events.ready, relay.ready, runners.ready]);
  // Named on stderr so that an operator (or a test) can tell whose streams a client resumes:
  // stream and server-to-client request ids start with it.
  const instanceId = randomBytes(6).toString("base64url");
  process.stderr.write(`cluster instance ${instanceId}\n`);
  const cluster = redisLegacyCluster(client, { ...shared, instanceId });
  return {
    server: { subscriptionEvents: events, mrtr: { secret }, tasks: { store, relay, runners } },
    http: {},
    legacy: { cluster },
    async close() {
      await Promise.all([events.close(), relay.close(), runners.close()]);
      client.destroy();
    },
  };
}
