/**
 * The gateway's limits, middleware beside its access rules (gateway-governance.ts):
 * `--rate-limit N/WINDOW` (tools/call per caller and window: mcpwire/middleware's `rateLimit`,
 * one count per caller across every endpoint, kept in Redis with `--redis URL` so that several
 * gateway instances share it) and `--max-result-bytes N` (`responseSize`: an oversize tool
 * result refused, or cut to fit with `--truncate-results`).
 */
import {
  MemoryRateLimitStore,
  type RateLimitStore,
  rateLimit,
  responseSize,
} from "../../middleware/index.js";
import type { Middleware } from "../../protocol/middleware.js";
import type { OptionKind, ParsedArgs } from "../core/args.js";
import { CliError, UsageError } from "../core/errors.js";

export const LIMIT_OPTIONS: Record<string, OptionKind> = {
  "rate-limit": "value",
  redis: "value",
  "redis-prefix": "value",
  "max-result-bytes": "value",
  "truncate-results": "flag",
};

export const LIMIT_USAGE = `  --rate-limit <n>/<window>  at most n tool calls per caller (its OAuth principal, else its legacy
                           session, else its address; with --token everyone is one caller) per
                           window: s, m, h or 30s, 5m, … (60/1m, 10/s); /mcp and every
                           /servers/<name>/mcp count together; over it the call gets error
                           -31429 with data.retryAfterMs
  --redis <url>            keep the --rate-limit counts in Redis (redis:// or rediss://), shared by
                           every gateway given the same URL and --redis-prefix
  --redis-prefix <p>       the prefix of those keys (default mcpwire:), one per group of gateways
  --max-result-bytes <n>   a tool result over n bytes (UTF-8 of its JSON; at least 320) is refused:
                           a tool error naming both sizes
  --truncate-results       with --max-result-bytes: cut such a result to fit instead, with a note`;

/** responseSize's least maxBytes: room for its refusal or truncation note. */
const MIN_RESULT_BYTES = 320;

const WINDOW_UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

export interface Limits {
  /** Middleware for each server offered, in order (the same instances, so counts are shared). */
  middleware: Array<{ method?: string; middleware: Middleware }>;
  close(): Promise<void>;
}

/** `--rate-limit N/WINDOW` as rateLimit's `limit` and `windowMs`. */
export function parseRateLimit(text: string): { limit: number; windowMs: number } {
  const match = /^(\d+)\/(\d*)([smh])$/.exec(text);
  const limit = Number(match?.[1]);
  const windowMs = (match?.[2] ? Number(match[2]) : 1) * (WINDOW_UNIT_MS[match?.[3] ?? ""] ?? 0);
  if (
    !(Number.isSafeInteger(limit) && limit > 0 && Number.isSafeInteger(windowMs) && windowMs > 0)
  ) {
    throw new UsageError(
      `--rate-limit takes <calls>/<window>, the window s, m, h or a number with one (30s, 5m), e.g. 60/1m, not ${JSON.stringify(text)}`,
    );
  }
  return { limit, windowMs };
}

function maxResultBytes(text: string): number {
  const bytes = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(Number.isSafeInteger(bytes) && bytes >= MIN_RESULT_BYTES)) {
    throw new UsageError(
      `--max-result-bytes takes a whole number of bytes, at least ${MIN_RESULT_BYTES}, e.g. 100000, not ${JSON.stringify(text)}`,
    );
  }
  return bytes;
}

/**
 * Checks the flags (usage errors before anything starts), then connects to Redis if asked
 * (failing at start when it is not there).
 */
export async function gatewayLimits(
  options: ParsedArgs["options"],
  report: (line: string) => void,
): Promise<Limits> {
  const rateText = options["rate-limit"] as string | undefined;
  const rate = rateText === undefined ? undefined : parseRateLimit(rateText);
  const redisUrl = options.redis as string | undefined;
  const prefix = options["redis-prefix"] as string | undefined;
  if (redisUrl !== undefined && rate === undefined) {
    throw new UsageError(
      "--redis keeps the --rate-limit counts (nothing else yet): give --rate-limit <n>/<window>",
    );
  }
  if (redisUrl !== undefined && !/^rediss?:\/\/./.test(redisUrl)) {
    throw new UsageError("--redis takes a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379");
  }
  if (prefix !== undefined && redisUrl === undefined) {
    throw new UsageError("--redis-prefix goes with --redis <url>");
  }
  const sizeText = options["max-result-bytes"] as string | undefined;
  if (options["truncate-results"] === true && sizeText === undefined) {
    throw new UsageError("--truncate-results goes with --max-result-bytes <n>");
  }
  const mode = options["truncate-results"] === true ? "truncate" : "refuse";
  const sizeLimit =
    sizeText === undefined ? undefined : responseSize({ maxBytes: maxResultBytes(sizeText), mode });
  const middleware: Limits["middleware"] = [];
  let close = async () => {};
  if (rate !== undefined) {
    let store: RateLimitStore = new MemoryRateLimitStore();
    if (redisUrl !== undefined) {
      const shared = await redisStore(redisUrl, prefix, report);
      store = shared.store;
      close = shared.close;
    }
    middleware.push({ middleware: rateLimit({ ...rate, store, methods: ["tools/call"] }) });
  }
  if (sizeLimit !== undefined) middleware.push({ method: "tools/call", middleware: sizeLimit });
  return { middleware, close };
}

/** The counts in Redis: connected now (or a failure at start), reconnecting when lost later. */
async function redisStore(
  url: string,
  prefix: string | undefined,
  report: (line: string) => void,
): Promise<{ store: RateLimitStore; close(): Promise<void> }> {
  let redis: typeof import("redis");
  try {
    redis = await import("redis");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") throw error;
    throw new CliError("--redis needs the redis package beside mcpwire: npm install redis");
  }
  const { RedisRateLimitStore } = await import("../../redis/rate-limit-store.js");
  let started = false;
  let down = false;
  const client = redis.createClient({
    url,
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
  const store = new RedisRateLimitStore(client, {
    ...(prefix === undefined ? {} : { prefix }),
    onError: (error) => report(`mcpwire gateway: redis: ${error.message}`),
  });
  return {
    store,
    close: async () => {
      if (client.isOpen) client.destroy();
    },
  };
}
