import { isPlainObject } from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import type { TaskRelay, TaskRelayMessage } from "../server/tasks/store.js";
import type { RedisClientLike } from "./client.js";
import { RedisTopic, type RedisTopicOptions } from "./topic.js";

/**
 * The TaskRelay of a cluster: one pub/sub channel (`<prefix>tasks`) that every instance hears;
 * the one running the task acts, the others ignore the message. Traffic is one message per
 * tasks/update or tasks/cancel answered away from the task's handler, so one channel for all
 * is cheaper than tracking which instance runs what.
 */
export class RedisTaskRelay implements TaskRelay {
  private readonly topic: RedisTopic<TaskRelayMessage>;
  private readonly handlers = new Set<(message: TaskRelayMessage) => void>();

  constructor(client: RedisClientLike, options: RedisTopicOptions = {}) {
    this.topic = new RedisTopic(client, "tasks", options, isRelayMessage, (message) => {
      for (const handler of [...this.handlers]) handler(message);
    });
  }

  /** Resolves once this instance hears the channel. */
  get ready(): Promise<void> {
    return this.topic.ready;
  }

  send(message: TaskRelayMessage): Promise<void> {
    return this.topic.send(message);
  }

  receive(handler: (message: TaskRelayMessage) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  close(): Promise<void> {
    this.handlers.clear();
    return this.topic.close();
  }
}

function isRelayMessage(value: unknown): value is TaskRelayMessage {
  if (!isPlainObject(value) || typeof value.taskId !== "string") return false;
  if (value.cancel === true) return true;
  return (
    isPlainObject(value.answers) &&
    Object.values(value.answers).every((answer): answer is JsonObject => isPlainObject(answer))
  );
}
