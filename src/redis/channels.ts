import type { RedisClientLike } from "./client.js";
import type { RedisCommands } from "./commands.js";

/** Hears one pub/sub message. */
export type RedisMessageListener = (message: string, channel: string) => void;

/**
 * Pub/sub for every mcpwire/redis class on one client: a subscribing connection can run no
 * other command, so one duplicate() of the user's client carries all their channels, and
 * PUBLISH goes through the client itself. node-redis re-subscribes by itself after it
 * reconnects (a Redis restart); messages published while it was away are lost, which every
 * user of this class accounts for.
 */
export class RedisChannels {
  private subscriber: RedisClientLike | undefined;
  private connecting: Promise<RedisClientLike> | undefined;
  private users = 0;

  private constructor(private readonly commands: RedisCommands) {}

  private static readonly shared = new WeakMap<RedisClientLike, RedisChannels>();

  /**
   * The channels of `commands.client`, shared by everything on that client; each caller
   * releases what it acquired (the connection closes when the last one does). The first
   * caller's settings (command timeout, onError) serve them all: connection trouble is about
   * the client, not about one user of it.
   */
  static acquire(commands: RedisCommands): RedisChannels {
    let channels = RedisChannels.shared.get(commands.client);
    if (!channels) {
      channels = new RedisChannels(commands);
      RedisChannels.shared.set(commands.client, channels);
    }
    channels.users += 1;
    return channels;
  }

  release(): void {
    this.users -= 1;
    if (this.users > 0) return;
    RedisChannels.shared.delete(this.commands.client);
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    this.connecting = undefined;
    subscriber?.destroy();
  }

  /** Publishes `message`; rejects when Redis does not take it (down, or the timeout passed). */
  async publish(channel: string, message: string): Promise<void> {
    await this.commands.send(["PUBLISH", channel, message]);
  }

  /**
   * Hears every message on `channel` until the returned function is called. Resolves once
   * subscribed (messages published after that are heard).
   */
  async listen(channel: string, listener: RedisMessageListener): Promise<() => Promise<void>> {
    const subscriber = await this.connection();
    // Our own function per call: unsubscribing one listener leaves the others on the channel.
    const entry: RedisMessageListener = (message, from) => {
      try {
        listener(message, from);
      } catch (error) {
        this.commands.reportError(error as Error);
      }
    };
    await subscriber.subscribe(channel, entry);
    return async () => {
      if (this.subscriber !== subscriber) return;
      await subscriber.unsubscribe(channel, entry).catch((error: Error) => {
        this.commands.reportError(new Error(`unsubscribing ${channel}: ${error.message}`));
      });
    };
  }

  private connection(): Promise<RedisClientLike> {
    this.connecting ??= (async () => {
      const subscriber = this.commands.client.duplicate();
      // Once per outage, not once per reconnect attempt.
      let down = false;
      subscriber.on("error", (error) => {
        if (down) return;
        down = true;
        this.commands.reportError(
          new Error(`pub/sub connection lost (${error.message}); reconnecting`),
        );
      });
      subscriber.on("ready", () => {
        if (!down) return;
        down = false;
        this.commands.reportError(
          new Error("pub/sub connection back; messages sent meanwhile were lost"),
        );
      });
      try {
        await subscriber.connect();
      } catch (error) {
        subscriber.destroy();
        throw error;
      }
      if (this.users <= 0) {
        // Released while it connected: nothing may keep the connection open.
        subscriber.destroy();
        throw new Error("mcpwire/redis: the pub/sub connection was closed");
      }
      this.subscriber = subscriber;
      return subscriber;
    })();
    const attempt = this.connecting;
    // A failed first connect is not cached: the next listen() tries again.
    attempt.catch(() => {
      if (this.connecting === attempt) this.connecting = undefined;
    });
    return attempt;
  }
}
