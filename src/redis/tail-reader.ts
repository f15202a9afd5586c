/**
 * One blocking reader per instance for every stream it follows: a dedicated connection runs
 * XREAD BLOCK over all waited-on streams at once and wakes the waiters of a stream that got
 * something (they read it themselves). A new waiter interrupts the block (CLIENT UNBLOCK) so it
 * is in the next read at once. The connection opens with the first waiter and closes with the
 * reader.
 */

import { ignoring } from "../text/ignored-error.js";
import type { RedisClientLike } from "./client.js";
import type { RedisCommands } from "./commands.js";

const BLOCK_MS = 10_000;
const RETRY_MS = 500;
/** Interrupting again this soon while the loop has not picked a new waiter up (see kick). */
const UNBLOCK_AGAIN_MS = 50;

interface Waiter {
  key: string;
  /** Wake when the stream has an entry after this id. */
  after: string;
  wake(): void;
}

export class TailReader {
  private readonly commands: RedisCommands;
  private readonly waiters = new Set<Waiter>();
  private connection: RedisClientLike | undefined;
  private connectionId: string | undefined;
  private running = false;
  private closed = false;
  /** A waiter joined since the loop last chose its streams. */
  private joined = false;

  constructor(commands: RedisCommands) {
    this.commands = commands;
  }

  /** Resolves once `key` has an entry after `after` (or may have), or when `signal` aborts. */
  wait(key: string, after: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted || this.closed) {
        resolve();
        return;
      }
      const waiter: Waiter = {
        key,
        after,
        wake: () => {
          this.waiters.delete(waiter);
          signal.removeEventListener("abort", waiter.wake);
          resolve();
        },
      };
      this.waiters.add(waiter);
      signal.addEventListener("abort", waiter.wake, { once: true });
      this.kick();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of [...this.waiters]) waiter.wake();
    const connection = this.connection;
    this.connection = undefined;
    connection?.destroy();
  }

  /** Starts the loop, or makes the running one read again with the new waiter's stream. */
  private kick(): void {
    if (!this.running) {
      this.running = true;
      void this.loop().finally(() => {
        this.running = false;
        if (this.waiters.size > 0 && !this.closed) this.kick();
      });
      return;
    }
    this.joined = true;
    this.unblock();
  }

  /**
   * Interrupts the blocking read so the loop reads again with the new waiter's stream. The
   * UNBLOCK (on another connection) may reach Redis before the read it was meant for: then it
   * is sent again until the loop has started a read that includes the waiter.
   */
  private unblock(): void {
    if (!this.joined || this.closed || this.connectionId === undefined) return;
    this.commands
      .send(["CLIENT", "UNBLOCK", this.connectionId])
      .catch(ignoring("unblocking the event stream reader"));
    setTimeout(() => this.unblock(), UNBLOCK_AGAIN_MS).unref();
  }

  private async loop(): Promise<void> {
    while (this.waiters.size > 0 && !this.closed) {
      try {
        const connection = await this.connect();
        this.joined = false;
        const streams = new Map<string, string>();
        for (const { key, after } of this.waiters) {
          const known = streams.get(key);
          if (known === undefined || compareIds(after, known) < 0) streams.set(key, after);
        }
        const reply = await connection.sendCommand([
          "XREAD",
          "COUNT",
          "1",
          "BLOCK",
          String(BLOCK_MS),
          "STREAMS",
          ...streams.keys(),
          ...streams.values(),
        ]);
        for (const key of streamsIn(reply)) this.wakeStream(key);
      } catch (error) {
        if (this.closed) return;
        this.commands.reportError(
          new Error(`stream tail reader: ${(error as Error)?.message ?? error}`),
        );
        // Everyone reads again (and fails, or finds what they missed); then a pause.
        for (const waiter of [...this.waiters]) waiter.wake();
        this.dropConnection();
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  private wakeStream(key: string): void {
    for (const waiter of [...this.waiters]) if (waiter.key === key) waiter.wake();
  }

  private async connect(): Promise<RedisClientLike> {
    if (this.connection) return this.connection;
    const connection = this.commands.client.duplicate();
    connection.on("error", ignoring("the event stream reader's Redis connection"));
    try {
      await connection.connect();
      this.connectionId = String(await connection.sendCommand(["CLIENT", "ID"]));
    } catch (error) {
      connection.destroy();
      throw error;
    }
    if (this.closed) {
      connection.destroy();
      throw new Error("closed");
    }
    this.connection = connection;
    return connection;
  }

  private dropConnection(): void {
    const connection = this.connection;
    this.connection = undefined;
    this.connectionId = undefined;
    connection?.destroy();
  }
}

/** The stream keys in an XREAD reply (RESP2 arrays or RESP3 maps). */
function streamsIn(reply: unknown): string[] {
  if (reply === null || reply === undefined) return [];
  if (Array.isArray(reply)) {
    return reply.map((entry) => String(Array.isArray(entry) ? entry[0] : entry));
  }
  if (reply instanceof Map) return [...reply.keys()].map(String);
  if (typeof reply === "object") return Object.keys(reply);
  return [];
}

/** Orders stream ids `ms-seq`. */
function compareIds(a: string, b: string): number {
  const [am = 0n, as = 0n] = a.split("-").map((part) => BigInt(part));
  const [bm = 0n, bs = 0n] = b.split("-").map((part) => BigInt(part));
  if (am !== bm) return am < bm ? -1 : 1;
  if (as !== bs) return as < bs ? -1 : 1;
  return 0;
}
