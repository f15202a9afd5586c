/**
 * The legacy cluster's bus on Redis pub/sub: one channel for the whole cluster (every instance
 * hears every message and keeps those about sessions it holds a copy of). Pub/sub forgets what
 * it could not deliver: a message lost while Redis restarts costs a client a retry (an answer
 * not delivered times out, a dropped copy reloads), never a corrupted session.
 */
import type { ClusterBus, ClusterMessage } from "../transports/http/legacy/cluster.js";
import { RedisChannels } from "./channels.js";
import type { RedisCommands } from "./commands.js";

export class RedisClusterBus implements ClusterBus {
  private readonly commands: RedisCommands;
  private readonly channel: string;

  constructor(commands: RedisCommands) {
    this.commands = commands;
    this.channel = commands.key("legacy:bus");
  }

  async publish(message: ClusterMessage): Promise<void> {
    await this.commands.send(["PUBLISH", this.channel, JSON.stringify(message)]);
  }

  async subscribe(listener: (message: ClusterMessage) => void): Promise<() => Promise<void>> {
    const channels = RedisChannels.acquire(this.commands);
    let stop: () => Promise<void>;
    try {
      stop = await channels.listen(this.channel, (text) => {
        let message: ClusterMessage;
        try {
          message = JSON.parse(text);
        } catch {
          return; // not ours
        }
        if (message && typeof message === "object" && typeof message.session === "string") {
          listener(message);
        }
      });
    } catch (error) {
      channels.release();
      throw error;
    }
    return async () => {
      await stop();
      channels.release();
    };
  }
}
