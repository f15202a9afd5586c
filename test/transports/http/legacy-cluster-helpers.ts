/**
 * A cluster in one process for the legacy cluster tests: several HTTP servers on 127.0.0.1
 * ("instances" a, b, c…), each its own McpServer, sharing an InMemoryClusterBackend and one
 * subscription event source, as instances sharing Redis would.
 */

import { createClient, type RedisClientType } from "redis";
import type { RedisClientLike } from "../../../src/redis/client.js";
import { redisLegacyCluster } from "../../../src/redis/legacy-cluster.js";
import { McpServer } from "../../../src/server/index.js";
import { InMemoryEventSource } from "../../../src/server/subscriptions.js";
import type {
  ClusterBus,
  ClusterMessage,
  LegacyCluster,
} from "../../../src/transports/http/legacy/cluster.js";
import { InMemoryClusterBackend } from "../../../src/transports/http/legacy/cluster-memory.js";
import type { LegacyOptions } from "../../../src/transports/http/legacy/legacy-handler.js";
import { serveHttp } from "../../../src/transports/http/node-adapter.js";
import { sharedRedis } from "../../helpers/redis.js";
import { addAskTool, RawSession } from "./legacy-helpers.js";

export interface ClusterProbe {
  /** Resolves when a "gated" call waits; release() lets it finish. */
  gateReached: Promise<void>;
  release(): void;
  /** Resolves with the instance whose "stuck" call was stopped. */
  stuckStopped: Promise<string>;
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

function buildInstance(name: string, events: InMemoryEventSource, probe: ClusterProbeState) {
  const server = new McpServer({
    serverInfo: { name: "cluster", version: "1" },
    subscriptionEvents: events,
    onError: () => {},
  });
  server.resource({ uri: "mem://one", name: "one" }, (uri) => [{ uri, text: "1" }]);
  server.resource({ uri: "mem://two", name: "two" }, (uri) => [{ uri, text: "2" }]);
  server.tool({ name: "where", inputSchema: { type: "object" } }, (_args, context) =>
    JSON.stringify({ instance: name, clientInfo: context.clientInfo }),
  );
  server.tool({ name: "logs", inputSchema: { type: "object" } }, async (_args, context) => {
    await context.log.info("quiet");
    await context.log.error("loud");
    return name;
  });
  addAskTool(server);
  server.tool({ name: "gated", inputSchema: { type: "object" } }, async (_args, context) => {
    await context.progress(1, 2, "waiting");
    probe.gate.arrived();
    await probe.gate.opened;
    await context.progress(2, 2, "released");
    return `released on ${name}`;
  });
  server.tool({ name: "stuck", inputSchema: { type: "object" } }, async (_args, context) => {
    await context.progress(1);
    await new Promise((_resolve, reject) => {
      context.signal.addEventListener("abort", () => {
        probe.stopped.resolve(name);
        reject(context.signal.reason);
      });
    });
    return "never";
  });
  return server;
}

interface ClusterProbeState {
  gate: { opened: Promise<void>; arrived(): void };
  stopped: { resolve(name: string): void };
}

/** Where the instances' shared state lives, as the tests see it. */
export interface SharedState {
  /** The cluster options of instance `name`. */
  instance(name: string): Promise<LegacyCluster>;
  /** As if `name` were SIGKILLed: its lease ends, it reaches the shared state no more. */
  sever(name: string): Promise<void>;
  sessionCount(): Promise<number>;
  streamCount(sessionId: string): Promise<number>;
  cleanup(): Promise<void>;
}

/** `leaseMs`: how long a severed instance still counts as alive. */
export function inMemoryState(leaseMs = 60_000): SharedState {
  const backend = new InMemoryClusterBackend();
  return {
    instance: async (name) => backend.instance({ instanceId: name, leaseMs }),
    sever: async (name) => backend.sever(name),
    sessionCount: async () => backend.sessionCount,
    streamCount: async (sessionId) => backend.streamCount(sessionId),
    cleanup: async () => {},
  };
}

/** Each instance with its own connection to the machine's Redis, under a test prefix. */
export async function redisState(who: string, leaseMs = 60_000): Promise<SharedState> {
  const shared = await sharedRedis(who);
  const clients = new Map<string, RedisClientType>();
  const count = async (pattern: string) => {
    let found = 0;
    for await (const page of shared.client.scanIterator({ MATCH: pattern, COUNT: 1000 })) {
      found += page.length;
    }
    return found;
  };
  return {
    async instance(name) {
      const client: RedisClientType = createClient({ url: shared.url, disableOfflineQueue: true });
      client.on("error", () => {});
      clients.set(name, client);
      await client.connect();
      return redisLegacyCluster(client as unknown as RedisClientLike, {
        prefix: shared.prefix,
        instanceId: name,
        leaseMs,
        onError: () => {},
      });
    },
    async sever(name) {
      clients.get(name)?.destroy();
      await shared.client.del(`${shared.prefix}legacy:lease:${name}`);
    },
    sessionCount: () => count(`${shared.prefix}legacy:session:*`),
    streamCount: (sessionId) => count(`${shared.prefix}legacy:events:${sessionId}:*`),
    async cleanup() {
      for (const client of clients.values()) if (client.isOpen) client.destroy();
      await shared.cleanup();
    },
  };
}

/**
 * Each instance with its own connection to `url` (a private redis-server the test may kill and
 * restart), reconnecting by itself as an instance of a real cluster would.
 */
export function privateRedisState(url: string, leaseMs = 60_000): SharedState {
  const clients = new Map<string, RedisClientType>();
  const prefix = "legacy-restart:";
  return {
    async instance(name) {
      const client: RedisClientType = createClient({
        url,
        disableOfflineQueue: true,
        socket: { reconnectStrategy: () => 100 },
      });
      client.on("error", () => {});
      clients.set(name, client);
      await client.connect();
      return redisLegacyCluster(client as unknown as RedisClientLike, {
        prefix,
        instanceId: name,
        leaseMs,
        commandTimeoutMs: 1_000,
        onError: () => {},
      });
    },
    async sever(name) {
      clients.get(name)?.destroy();
    },
    sessionCount: async () => Number.NaN,
    streamCount: async () => Number.NaN,
    async cleanup() {
      for (const client of clients.values()) if (client.isOpen) client.destroy();
    },
  };
}

/** The same shared state, each instance's cluster options passed through `change` first. */
export function adjusted(
  state: SharedState,
  change: (name: string, cluster: LegacyCluster) => LegacyCluster,
): SharedState {
  return { ...state, instance: async (name) => change(name, await state.instance(name)) };
}

/**
 * A bus on which this instance never hears the messages `lost` picks (as when pub/sub drops
 * them), and hears the others after `delay(message)` ms (0: as they come).
 */
export function unreliable(
  bus: ClusterBus,
  lost: (message: ClusterMessage) => boolean,
  delay: (message: ClusterMessage) => number = () => 0,
): ClusterBus {
  return {
    publish: (message) => bus.publish(message),
    subscribe: (listener) =>
      bus.subscribe((message) => {
        if (lost(message)) return;
        const wait = delay(message);
        if (wait > 0) setTimeout(() => listener(message), wait);
        else listener(message);
      }),
  };
}

export async function startCluster(
  names: string[],
  extra: LegacyOptions = {},
  state: SharedState = inMemoryState(),
) {
  const events = new InMemoryEventSource();
  const opened = deferred<void>();
  const reached = deferred<void>();
  const stopped = deferred<string>();
  const probeState: ClusterProbeState = {
    gate: { opened: opened.promise, arrived: () => reached.resolve() },
    stopped,
  };
  const probe: ClusterProbe = {
    gateReached: reached.promise,
    release: () => opened.resolve(),
    stuckStopped: stopped.promise,
  };
  const instances: Array<{
    name: string;
    server: McpServer;
    served: Awaited<ReturnType<typeof serveHttp>>;
    url: string;
  }> = [];
  try {
    for (const name of names) {
      const server = buildInstance(name, events, probeState);
      const cluster = await state.instance(name);
      const served = await serveHttp(server, {
        legacy: { retryMs: 20, shutdownGraceMs: 200, ...extra, cluster },
      });
      instances.push({ name, server, served, url: served.url });
    }
  } catch (error) {
    await Promise.all(instances.map((instance) => instance.served.close()));
    await state.cleanup();
    throw error;
  }
  const byName = new Map(instances.map((instance) => [instance.name, instance]));
  return {
    state,
    probe,
    instance(name: string) {
      const found = byName.get(name);
      if (!found) throw new Error(`no instance ${name}`);
      return found;
    },
    /** The same session, addressed at instance `name`. */
    at(raw: RawSession, name: string): RawSession {
      const moved = new RawSession(this.instance(name).url);
      moved.sessionId = raw.sessionId;
      return moved;
    },
    async close() {
      probe.release();
      await Promise.all(instances.map((instance) => instance.served.close()));
      await state.cleanup();
    },
  };
}

export type TestCluster = Awaited<ReturnType<typeof startCluster>>;
