/** Instance leases in Redis: a key per instance that expires unless renewed. */
import type { InstanceLeases } from "../transports/http/legacy/cluster.js";
import type { RedisCommands } from "./commands.js";

export class RedisInstanceLeases implements InstanceLeases {
  private readonly commands: RedisCommands;

  constructor(commands: RedisCommands) {
    this.commands = commands;
  }

  async renew(instanceId: string, ttlMs: number): Promise<void> {
    await this.commands.send(["SET", this.key(instanceId), "1", "PX", String(Math.ceil(ttlMs))]);
  }

  async alive(instanceId: string): Promise<boolean> {
    return Number(await this.commands.send(["EXISTS", this.key(instanceId)])) === 1;
  }

  async release(instanceId: string): Promise<void> {
    await this.commands.send(["DEL", this.key(instanceId)]);
  }

  private key(instanceId: string): string {
    return this.commands.key(`legacy:lease:${instanceId}`);
  }
}
