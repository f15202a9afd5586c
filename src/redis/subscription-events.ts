import { isPlainObject } from "../jsonrpc/errors.js";
import { withEventId } from "../server/event-ids.js";
import {
  InMemoryEventSource,
  type SubscriptionEvent,
  type SubscriptionEventListener,
  type SubscriptionEventSource,
} from "../server/subscriptions.js";
import type { RedisClientLike } from "./client.js";
import { RedisTopic, type RedisTopicOptions } from "./topic.js";

/**
 * Subscription events (list changes, resource updates, task status) shared by every instance
 * of a cluster, over one Redis pub/sub channel (`<prefix>events`). Listeners here hear what
 * is published here at once, without a round trip; what other instances publish arrives
 * through the channel. Pub/sub delivers at most once: an event published while Redis is down
 * is reported (onError) and reaches only this instance's listeners; publish() never throws.
 */
export class RedisSubscriptionEventSource implements SubscriptionEventSource {
  readonly sharedAcrossInstances = true;
  private readonly local = new InMemoryEventSource();
  private readonly topic: RedisTopic<SubscriptionEvent>;
  private closed = false;
  /** List kinds whose change is queued for the other instances (see publish). */
  private readonly pendingLists = new Set<string>();

  constructor(client: RedisClientLike, options: RedisTopicOptions = {}) {
    this.topic = new RedisTopic(client, "events", options, isEvent, (event) =>
      this.local.publish(event),
    );
  }

  /** Resolves once this instance hears the other instances' events. */
  get ready(): Promise<void> {
    return this.topic.ready;
  }

  publish(published: SubscriptionEvent): void {
    // One id for the event here and on every other instance.
    const event = withEventId(published);
    this.local.publish(event);
    if (this.closed) return;
    if (event.type === "listChanged") {
      // A burst of registrations (a server starting) is one change to the other instances,
      // not one message per tool.
      if (this.pendingLists.has(event.kind)) return;
      this.pendingLists.add(event.kind);
      setImmediate(() => {
        this.pendingLists.delete(event.kind);
        this.send(event);
      });
      return;
    }
    this.send(event);
  }

  private send(event: SubscriptionEvent): void {
    if (this.closed) return;
    this.topic.send(event).catch((error: Error) => {
      this.topic.commands.reportError(
        new Error(`a ${event.type} event reached only this instance: ${error.message}`),
      );
    });
  }

  subscribe(listener: SubscriptionEventListener): () => void {
    return this.local.subscribe(listener);
  }

  /** Stops hearing other instances (this instance's own events still reach its listeners). */
  close(): Promise<void> {
    this.closed = true;
    return this.topic.close();
  }
}

const LIST_KINDS = new Set(["tools", "resources", "prompts"]);

/** The three event shapes and nothing else. */
function isEvent(value: unknown): value is SubscriptionEvent {
  if (!isPlainObject(value)) return false;
  switch (value.type) {
    case "listChanged":
      return LIST_KINDS.has(value.kind as string);
    case "resourceUpdated":
      return typeof value.uri === "string";
    case "taskStatus":
      return (
        typeof value.owner === "string" &&
        isPlainObject(value.task) &&
        typeof value.task.taskId === "string" &&
        (value.legacySession === undefined || typeof value.legacySession === "string")
      );
    default:
      return false;
  }
}
