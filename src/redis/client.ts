/**
 * The Redis client mcpwire/redis works with: the slice of node-redis's client (`redis` 5 or 6,
 * `createClient()`) it calls, as a structural type, so that this subpath never imports `redis`
 * itself. Pass your own connected client; anything that has these members works.
 *
 * Recommended node-redis options for a cluster (see docs/cluster.md): `disableOfflineQueue: true`
 * so commands fail at once while Redis is down instead of queueing, and the default
 * `socket.reconnectStrategy`, which reconnects with backoff after Redis restarts.
 */
export interface RedisClientLike {
  /** One command, raw arguments in, the RESP reply out (strings, numbers, arrays, null). */
  sendCommand(args: ReadonlyArray<string>, options?: { timeout?: number }): Promise<unknown>;
  /** A new, not yet connected client with the same options (pub/sub needs its own connection). */
  duplicate(): RedisClientLike;
  connect(): Promise<unknown>;
  subscribe(
    channel: string,
    listener: (message: string, channel: string) => unknown,
  ): Promise<unknown>;
  unsubscribe(
    channel?: string,
    listener?: (message: string, channel: string) => unknown,
  ): Promise<unknown>;
  on(event: "error", listener: (error: Error) => void): unknown;
  /** Connected (again): node-redis says so after every reconnect. */
  on(event: "ready", listener: () => void): unknown;
  /** Closes the connection at once, rejecting what is pending. */
  destroy(): void;
  readonly isReady: boolean;
}

/** Settings every mcpwire/redis class shares. */
export interface RedisNamespaceOptions {
  /**
   * Prefix of every key and channel this library uses (default "mcpwire:"). Instances of one
   * cluster use the same prefix; separate clusters on one Redis use different ones.
   */
  prefix?: string;
  /**
   * A command not answered within this many ms fails (default 5000), so that no request waits
   * for Redis forever; use `disableOfflineQueue: true` on the client to fail at once while it is
   * down.
   */
  commandTimeoutMs?: number;
  /** Where Redis problems are reported (default: a line on stderr). */
  onError?: (error: Error) => void;
}

export const DEFAULT_PREFIX = "mcpwire:";
export const DEFAULT_COMMAND_TIMEOUT_MS = 5000;

/** Reports on stderr, saying where it came from; never the command's arguments (they may hold state). */
export function defaultRedisErrorReporter(error: Error): void {
  process.stderr.write(`mcpwire/redis: ${error.message}\n`);
}
