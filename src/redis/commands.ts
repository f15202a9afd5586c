import { createHash } from "node:crypto";
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_PREFIX,
  defaultRedisErrorReporter,
  type RedisClientLike,
  type RedisNamespaceOptions,
} from "./client.js";

/**
 * Redis could not be asked (down, unreachable, timed out, or the client closed): what a request
 * needing shared state fails with. Redis's own error replies (a script's NOSCRIPT, a rejected
 * stream id) are not wrapped.
 */
export class RedisUnavailableError extends Error {
  override name = "RedisUnavailableError";
}

/** node-redis's classes for errors Redis itself replied with. */
const REPLY_ERRORS = new Set(["ErrorReply", "SimpleError", "BlobError", "MultiErrorReply"]);

function unavailable(error: unknown): unknown {
  if (!(error instanceof Error) || REPLY_ERRORS.has(error.constructor.name)) return error;
  return new RedisUnavailableError(`shared state (Redis) is unreachable: ${error.message}`, {
    cause: error,
  });
}

/** A Lua script sent by hash (EVALSHA), and in full once when Redis does not know it yet. */
export class RedisScript {
  readonly sha1: string;
  constructor(readonly source: string) {
    this.sha1 = createHash("sha1").update(source).digest("hex");
  }
}

/**
 * Commands with a timeout and the namespace applied: what every mcpwire/redis class goes
 * through, so that none of them can forget the timeout or write outside the prefix.
 */
export class RedisCommands {
  readonly prefix: string;
  readonly timeoutMs: number;
  readonly reportError: (error: Error) => void;

  constructor(
    readonly client: RedisClientLike,
    options: RedisNamespaceOptions = {},
  ) {
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
    this.timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.reportError = options.onError ?? defaultRedisErrorReporter;
  }

  /** The full key (or channel) name for `name` in this namespace. */
  key(name: string): string {
    return `${this.prefix}${name}`;
  }

  send(args: string[]): Promise<unknown> {
    return this.client.sendCommand(args, { timeout: this.timeoutMs }).catch((error: unknown) => {
      throw unavailable(error);
    });
  }

  /** Runs `script` with KEYS and ARGV; loads it on a NOSCRIPT reply (after a Redis restart too). */
  async eval(script: RedisScript, keys: string[], args: string[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await this.send(["EVALSHA", script.sha1, ...tail]);
    } catch (error) {
      if (!String((error as Error)?.message).startsWith("NOSCRIPT")) throw error;
      return this.send(["EVAL", script.source, ...tail]);
    }
  }
}
