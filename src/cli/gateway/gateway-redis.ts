/**
 * The gateway's one Redis connection (`--redis URL`, `--redis-prefix P`): shared by the
 * --rate-limit counts (gateway-limits.ts) and by the cluster of gateway instances
 * (gateway-cluster.ts). Connected at start (a failure then is the gateway's), reconnected with
 * backoff when lost later.
 */
import type { RedisClientLike } from "../../redis/client.js";
import type { ParsedArgs } from "../core/args.js";
import { CliError, UsageError } from "../core/errors.js";

export interface GatewayRedis {
  readonly client: RedisClientLike;
  /** --redis-prefix, if given (the library's default otherwise). */
  readonly prefix: string | undefined;
  close(): Promise<void>;
}

/** Checks --redis and --redis-prefix; undefined without --redis. */
export function redisSettings(
  options: ParsedArgs["options"],
): { url: string; prefix: string | undefined } | undefined {
  const url = options.redis as string | undefined;
  const prefix = options["redis-prefix"] as string | undefined;
  if (prefix !== undefined && url === undefined) {
    throw new UsageError("--redis-prefix goes with --redis <url>");
  }
  if (url === undefined) return undefined;
  if (!/^rediss?:\/\/./.test(url)) {
    throw new UsageError("--redis takes a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379");
  }
  return { url, prefix };
}

/** Connects now: a Redis that is not there fails the start, with the cause (never the URL). */
export async function connectRedis(
  settings: { url: string; prefix: string | undefined },
  report: (line: string) => void,
): Promise<GatewayRedis> {
  let redis: typeof import("redis");
  try {
    redis = await import("redis");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") throw error;
    throw new CliError("--redis needs the redis package beside mcpwire: npm install redis");
  }
  let started = false;
  let down = false;
  const client = redis.createClient({
    url: settings.url,
    // While Redis is down a call fails at once (rather than wait) and is not let through uncounted.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 5000,
      reconnectStrategy: (retries: number, cause: Error) =>
        started ? Math.min(50 * 2 ** retries, 2000) : cause,
    },
  });
  // Said once per outage, not once per reconnect attempt; never the URL (it may hold a password).
  client.on("error", (error: Error) => {
    if (!started || down) return;
    down = true;
    report(`mcpwire gateway: redis: connection lost (${error.message}); reconnecting`);
  });
  client.on("ready", () => {
    if (!down) return;
    down = false;
    report("mcpwire gateway: redis: reconnected");
  });
  try {
    await client.connect();
  } catch (error) {
    client.destroy();
    throw new CliError(`--redis: cannot connect to Redis (${(error as Error).message})`);
  }
  started = true;
  return {
    client: client as unknown as RedisClientLike,
    prefix: settings.prefix,
    close: async () => {
      if (client.isOpen) client.destroy();
    },
  };
}
