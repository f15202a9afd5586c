/**
 * Redis for tests: the machine's shared Redis with a private key prefix per test (only those
 * keys are deleted afterwards, never FLUSH), or a private redis-server a test may kill and
 * restart. A missing Redis fails the test with one line saying how to start it: tests that
 * need Redis never skip.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createClient, type RedisClientType } from "redis";
import { watchChild } from "./child-watch.js";
import { freePort, portAccepting } from "./free-port.js";

export const REDIS_START_COMMAND =
  'redis-server --daemonize yes --port 6379 --save "" --appendonly no';

export function sharedRedisUrl(): string {
  return process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
}

export interface SharedRedis {
  url: string;
  /** This test's key prefix: every key and channel it makes starts with it. */
  prefix: string;
  /** A connected client for the test's own use (closed by cleanup). */
  client: RedisClientType;
  /** Keys under `prefix` right now (for tests that check they left nothing behind). */
  keys(): Promise<string[]>;
  /** Deletes exactly the keys under `prefix`, then closes the client. */
  cleanup(): Promise<void>;
}

/**
 * Connects to the machine's Redis (REDIS_URL, default redis://127.0.0.1:6379). `who` names the
 * test in the error when Redis is not there.
 */
export async function sharedRedis(who: string): Promise<SharedRedis> {
  const url = sharedRedisUrl();
  const client: RedisClientType = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: false },
  });
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (error) {
    client.destroy();
    throw new Error(
      `${who} needs Redis at ${url} (REDIS_URL), which is not reachable (${(error as Error).message}); start it with: ${REDIS_START_COMMAND}`,
    );
  }
  const prefix = `mcpwire-test:${randomBytes(6).toString("hex")}:`;
  const keys = async () => {
    const found: string[] = [];
    for await (const page of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
      found.push(...page);
    }
    return found;
  };
  return {
    url,
    prefix,
    client,
    keys,
    async cleanup() {
      if (!client.isOpen) return;
      const left = await keys();
      if (left.length > 0) await client.unlink(left);
      client.destroy();
    },
  };
}

export interface PrivateRedis {
  port: number;
  url: string;
  /**
   * A connected client that fails commands at once while the server is down and reconnects
   * quickly when it is back (closed by stop()).
   */
  connect(): Promise<RedisClientType>;
  /** SIGKILLs the server (no shutdown); resolves once it is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: it saves nothing). */
  restart(): Promise<void>;
  /** Kills it for good (for cleanup; safe to call twice). */
  stop(): Promise<void>;
}

/** A redis-server of this test's own on a free port: no persistence, loopback only. */
export async function startPrivateRedis(who: string): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const started = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    child = started;
    let stderr = "";
    started.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const failed = new Promise<never>((_, reject) => {
      started.once("error", (error) => {
        reject(
          new Error(
            `${who} needs the redis-server binary (${error.message}); install it with: apt-get install -y redis-server`,
          ),
        );
      });
      started.once("exit", (code) => {
        reject(new Error(`redis-server on port ${port} exited (${code}) at start: ${stderr}`));
      });
    });
    failed.catch(() => {});
    await Promise.race([portAccepting(port, 10_000, "redis-server"), failed]);
    watchChild(`redis-server on port ${port}`, started, () => stderr);
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };
  await start();
  const url = `redis://127.0.0.1:${port}`;
  const clients: RedisClientType[] = [];
  return {
    port,
    url,
    async connect() {
      const client: RedisClientType = createClient({
        url,
        disableOfflineQueue: true,
        socket: { reconnectStrategy: () => 50 },
      });
      client.on("error", () => {});
      clients.push(client);
      await client.connect();
      return client;
    },
    kill,
    restart: start,
    async stop() {
      for (const client of clients.splice(0)) client.destroy();
      await kill();
    },
  };
}
