import type { JsonObject } from "../jsonrpc/types.js";
import type { SubscriptionFilter } from "../protocol/mcp-types.js";

/** A notification delivered on a subscription. */
export interface SubscriptionNotification {
  method: string;
  params: JsonObject;
}

/**
 * Why a subscription ended. "closed": by close(). "completed": the server ended it gracefully
 * (a completion result, e.g. on shutdown). "disconnected": the connection went away for good.
 * "failed": the server refused it (the error says why).
 */
export interface SubscriptionEnd {
  reason: "closed" | "completed" | "disconnected" | "failed";
  error?: Error;
}

/**
 * One `subscriptions/listen` stream (or its legacy equivalent) as the application sees it: an
 * async iterable of notifications that ends when the subscription does. Iterating after a
 * failure throws the error. Notifications queue up until read.
 */
export class Subscription implements AsyncIterable<SubscriptionNotification> {
  /** The filter asked for. */
  readonly requested: SubscriptionFilter;
  /** The subset the server agreed to honour (its acknowledgement). */
  readonly acknowledged: Promise<SubscriptionFilter>;
  /** Settles once, when the subscription ends. */
  readonly ended: Promise<SubscriptionEnd>;
  private readonly closer: (subscription: Subscription) => Promise<void>;
  private readonly queue: SubscriptionNotification[] = [];
  private readonly readers: Array<{
    resolve(result: IteratorResult<SubscriptionNotification>): void;
    reject(error: Error): void;
  }> = [];
  private end: SubscriptionEnd | undefined;
  private resolveAck!: (filter: SubscriptionFilter) => void;
  private rejectAck!: (error: Error) => void;
  private resolveEnded!: (end: SubscriptionEnd) => void;
  private closing: Promise<void> | undefined;

  constructor(
    requested: SubscriptionFilter,
    closer: (subscription: Subscription) => Promise<void>,
  ) {
    this.requested = requested;
    this.closer = closer;
    this.acknowledged = new Promise((resolve, reject) => {
      this.resolveAck = resolve;
      this.rejectAck = reject;
    });
    this.acknowledged.catch(() => {}); // an unread failure must not crash the process
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
  }

  /** Whether the subscription has ended. */
  get isEnded(): boolean {
    return this.end !== undefined;
  }

  /** Ends the subscription (cancels the listen request; legacy: unsubscribes). Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.end ? Promise.resolve() : this.closer(this);
    return this.closing;
  }

  [Symbol.asyncIterator](): AsyncIterator<SubscriptionNotification> {
    return {
      next: () => this.next(),
      return: async () => {
        await this.close();
        return { done: true, value: undefined };
      },
    };
  }

  /** @internal The server acknowledged (the first one counts; re-subscriptions keep it). */
  acknowledge(filter: SubscriptionFilter): void {
    this.resolveAck(filter);
  }

  /** @internal */
  deliver(notification: SubscriptionNotification): void {
    if (this.end) return;
    const reader = this.readers.shift();
    if (reader) reader.resolve({ done: false, value: notification });
    else this.queue.push(notification);
  }

  /** @internal Ends the subscription; later calls are ignored. */
  finish(end: SubscriptionEnd): void {
    if (this.end) return;
    this.end = end;
    this.rejectAck(end.error ?? new Error(`subscription ${end.reason} before it was acknowledged`));
    this.resolveEnded(end);
    for (const reader of this.readers.splice(0)) {
      if (end.reason === "failed" && end.error) reader.reject(end.error);
      else reader.resolve({ done: true, value: undefined });
    }
  }

  private next(): Promise<IteratorResult<SubscriptionNotification>> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve({ done: false, value: queued });
    if (this.end) {
      if (this.end.reason === "failed" && this.end.error) return Promise.reject(this.end.error);
      return Promise.resolve({ done: true, value: undefined });
    }
    return new Promise((resolve, reject) => this.readers.push({ resolve, reject }));
  }
}
