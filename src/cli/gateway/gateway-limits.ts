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
import { UsageError } from "../core/errors.js";
import type { GatewayRedis } from "./gateway-redis.js";

export const LIMIT_OPTIONS: Record<string, OptionKind> = {
  "rate-limit": "value",
  redis: "value",
  "redis-prefix": "value",
  advertise: "value",
  "max-result-bytes": "value",
  "truncate-results": "flag",
};

export const LIMIT_USAGE = `  --rate-limit <n>/<window>  at most n tool calls per caller (its OAuth principal, else its legacy
                           session, else its address; with --token everyone is one caller) per
                           window: s, m, h or 30s, 5m, … (60/1m, 10/s); /mcp and every
                           /servers/<name>/mcp count together; over it the call gets error
                           -31429 with data.retryAfterMs
  --redis <url>            run as one of several gateway instances behind a load balancer
                           (redis:// or rediss://): every instance given the same URL and prefix
                           shares legacy sessions, multi round-trip calls, relayed tasks and the
                           --rate-limit counts (see --advertise)
  --redis-prefix <p>       the prefix of those keys (default mcpwire:), one per group of gateways
  --advertise <url>        with --redis: where the other instances reach this one (default the
                           --listen address; required when listening on 0.0.0.0 or ::)
  --max-result-bytes <n>   a tool result over n bytes (UTF-8 of its JSON; at least 320) is refused:
                           a tool error naming both sizes
  --truncate-results       with --max-result-bytes: cut such a result to fit instead, with a note`;

/** responseSize's least maxBytes: room for its refusal or truncation note. */
const MIN_RESULT_BYTES = 320;

const WINDOW_UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

export interface Limits {
  /** Middleware for each server offered, in order (the same instances, so counts are shared). */
  middleware: Array<{ method?: string; middleware: Middleware }>;
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
 * Checks the flags (usage errors come before anything starts); the counts go to Redis when the
 * gateway has a connection to it (--redis).
 */
export async function gatewayLimits(
  options: ParsedArgs["options"],
  redis: GatewayRedis | undefined,
  report: (line: string) => void,
): Promise<Limits> {
  const rateText = options["rate-limit"] as string | undefined;
  const rate = rateText === undefined ? undefined : parseRateLimit(rateText);
  const sizeText = options["max-result-bytes"] as string | undefined;
  if (options["truncate-results"] === true && sizeText === undefined) {
    throw new UsageError("--truncate-results goes with --max-result-bytes <n>");
  }
  const mode = options["truncate-results"] === true ? "truncate" : "refuse";
  const sizeLimit =
    sizeText === undefined ? undefined : responseSize({ maxBytes: maxResultBytes(sizeText), mode });
  const middleware: Limits["middleware"] = [];
  if (rate !== undefined) {
    // Loaded only with --redis: the gateway's start stays light without it.
    const store: RateLimitStore = redis
      ? new (await import("../../redis/rate-limit-store.js")).RedisRateLimitStore(redis.client, {
          ...(redis.prefix === undefined ? {} : { prefix: redis.prefix }),
          onError: (error) => report(`mcpwire gateway: redis: ${error.message}`),
        })
      : new MemoryRateLimitStore();
    middleware.push({ middleware: rateLimit({ ...rate, store, methods: ["tools/call"] }) });
  }
  if (sizeLimit !== undefined) middleware.push({ method: "tools/call", middleware: sizeLimit });
  return { middleware };
}
