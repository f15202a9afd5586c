import { isPlainObject } from "../jsonrpc/errors.js";
import { RedisChannels } from "./channels.js";
import type { RedisClientLike, RedisNamespaceOptions } from "./client.js";
import { RedisCommands } from "./commands.js";
import { newInstanceId } from "./instance-id.js";

export interface RedisTopicOptions extends RedisNamespaceOptions {
  /** This instance's id (default: random); messages carrying it are its own and skipped. */
  instanceId?: string;
}

/**
 * One JSON pub/sub channel of a cluster (`<prefix><name>`): messages are sent tagged with this
 * instance's id, and only other instances' messages that pass `accepts` are heard (the
 * channel is shared: anything on it is checked before use).
 */
export class RedisTopic<T> {
  readonly instanceId: string;
  readonly commands: RedisCommands;
  /** Resolves once this instance hears the channel (rejects if Redis cannot be reached). */
  readonly ready: Promise<void>;
  private readonly channels: RedisChannels;
  private readonly channel: string;
  private stopListening: (() => Promise<void>) | undefined;
  private closed = false;

  constructor(
    client: RedisClientLike,
    name: string,
    options: RedisTopicOptions,
    private readonly accepts: (value: unknown) => value is T,
    private readonly heard: (message: T) => void,
  ) {
    this.commands = new RedisCommands(client, options);
    this.instanceId = options.instanceId ?? newInstanceId();
    this.channel = this.commands.key(name);
    this.channels = RedisChannels.acquire(this.commands);
    this.ready = this.channels
      .listen(this.channel, (text) => this.received(text))
      .then((stop) => {
        if (this.closed) void stop();
        else this.stopListening = stop;
      });
    this.ready.catch(() => {});
  }

  /** Rejects when Redis does not take it (down, or the command timed out). */
  async send(message: T): Promise<void> {
    if (this.closed) throw new Error(`${this.channel}: closed`);
    await this.channels.publish(this.channel, JSON.stringify({ from: this.instanceId, message }));
  }

  /** Stops hearing the channel and releases the shared pub/sub connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.stopListening?.();
    this.channels.release();
  }

  private received(text: string): void {
    let envelope: unknown;
    try {
      envelope = JSON.parse(text);
    } catch {
      envelope = undefined;
    }
    if (!isPlainObject(envelope) || !this.accepts(envelope.message)) {
      this.commands.reportError(new Error(`malformed message on ${this.channel} ignored`));
      return;
    }
    if (envelope.from !== this.instanceId) this.heard(envelope.message);
  }
}
