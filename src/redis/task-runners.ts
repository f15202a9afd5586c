import type { TaskRunners } from "../server/tasks/store.js";
import { ignoring } from "../text/ignored-error.js";
import type { RedisClientLike } from "./client.js";
import { RedisCommands } from "./commands.js";
import { newInstanceId } from "./instance-id.js";
import type { RedisTopicOptions } from "./topic.js";

export interface RedisTaskRunnersOptions extends RedisTopicOptions {
  /**
   * How long this instance counts as alive after its last renewal (ms, default 10 s); it renews
   * three times per lease. A task of an instance silent for longer is marked failed.
   */
  leaseMs?: number;
}

const DEFAULT_LEASE_MS = 10_000;

/**
 * TaskRunners on Redis: each instance keeps a key (`<prefix>task-runner:<id>`) that expires
 * unless renewed. Renewal failures (Redis down) are reported; should Redis lose the key meanwhile
 * (an outage longer than the lease), this instance's tasks may be marked failed by another
 * instance before the next renewal, and their results are then dropped.
 */
export class RedisTaskRunners implements TaskRunners {
  readonly self: string;
  /** Resolves once the first lease is in Redis. */
  readonly ready: Promise<void>;
  private readonly commands: RedisCommands;
  private readonly leaseMs: number;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(client: RedisClientLike, options: RedisTaskRunnersOptions = {}) {
    this.commands = new RedisCommands(client, options);
    this.self = options.instanceId ?? newInstanceId();
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.ready = this.renew();
    this.ready.catch(() => {});
    this.timer = setInterval(() => {
      this.renew().catch((error: Error) =>
        this.commands.reportError(new Error(`task runner lease not renewed: ${error.message}`)),
      );
    }, this.leaseMs / 3);
    // A lease must never keep a process alive on its own.
    this.timer.unref();
    // A Redis that restarted empty has forgotten every lease: take ours again at once, before
    // anything else this client sends, not up to a third of a lease later.
    client.on("ready", () => {
      // The interval's next renewal reports a failure that lasts; this early one need not.
      if (!this.closed) this.renew().catch(ignoring("renewing the task runner lease on reconnect"));
    });
  }

  async alive(runner: string): Promise<boolean> {
    return Number(await this.commands.send(["EXISTS", this.key(runner)])) === 1;
  }

  /** Stops renewing and gives the lease up (the server's close() has ended its tasks). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.commands.send(["DEL", this.key(this.self)]);
  }

  private async renew(): Promise<void> {
    await this.commands.send(["SET", this.key(this.self), "1", "PX", String(this.leaseMs)]);
  }

  private key(runner: string): string {
    return this.commands.key(`task-runner:${runner}`);
  }
}
