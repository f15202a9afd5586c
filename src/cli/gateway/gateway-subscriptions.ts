/**
 * The gateway's subscription events, fed by its child. HTTP clients subscribe to the gateway
 * (modern `subscriptions/listen`, legacy `resources/subscribe`); the gateway subscribes once
 * to the child through its McpClient's listen(), which speaks the child's era (a listen stream
 * for a modern child, resources/subscribe plus unsolicited list_changed for a legacy one).
 *
 * - List changes: one child subscription for the lifetime of the gateway, fanned out to every
 *   listen stream that asked and every legacy session.
 * - Resource updates: one child subscription per distinct uri, counted across HTTP clients and
 *   closed when the last of them stops wanting it.
 * - Task status (the tasks extension): the same, per task id, for the task's own client only
 *   (its owner as gateway-tasks.ts remembers it); each status goes out as that owner's.
 *
 * Both survive a restarted child: the McpClient subscribes again on the fresh one.
 */
import type { McpClient } from "../../client/index.js";
import type { Subscription, SubscriptionNotification } from "../../client/subscription.js";
import { ErrorCode, JsonRpcError } from "../../jsonrpc/errors.js";
import type { SubscriptionFilter } from "../../protocol/mcp-types.js";
import {
  InMemoryEventSource,
  type SubscriptionEvent,
  type SubscriptionEventListener,
  type SubscriptionEventSource,
} from "../../server/subscriptions.js";

const LIST_KIND: Record<string, "tools" | "resources" | "prompts"> = {
  "notifications/tools/list_changed": "tools",
  "notifications/resources/list_changed": "resources",
  "notifications/prompts/list_changed": "prompts",
};

interface Watched {
  subscription: Subscription;
  /** What it was opened for: a uri, or a task id (for the error a refusal gives). */
  what: string;
  /** Settles once the child subscribed (or refused). */
  ready: Promise<void>;
  /** HTTP-side subscribers (listen streams and legacy sessions) wanting this uri. */
  count: number;
}

/**
 * Each uri a listen stream asks for costs a subscription on the child (a request it holds open,
 * or a resources/subscribe): without a bound one request could make the gateway open tens of
 * thousands of them.
 */
export const DEFAULT_MAX_URIS_PER_STREAM = 1000;

export class ChildEventSource implements SubscriptionEventSource {
  readonly maxWatchesPerSubscriber: number;
  /** Where events go out and are heard: this process, or every instance of a cluster. */
  private readonly local: SubscriptionEventSource;
  private readonly watched = new Map<string, Watched>();
  private readonly child: () => McpClient;
  private readonly report: (error: Error) => void;
  private readonly taskOwner: (taskId: string) => string | undefined;

  constructor(
    child: () => McpClient,
    report: (error: Error) => void,
    maxWatchesPerSubscriber = DEFAULT_MAX_URIS_PER_STREAM,
    taskOwner: (taskId: string) => string | undefined = () => undefined,
    bus: SubscriptionEventSource = new InMemoryEventSource(),
  ) {
    this.local = bus;
    this.child = child;
    this.report = report;
    this.maxWatchesPerSubscriber = maxWatchesPerSubscriber;
    this.taskOwner = taskOwner;
  }

  publish(event: SubscriptionEvent): void {
    this.local.publish(event);
  }

  subscribe(listener: SubscriptionEventListener): () => void {
    return this.local.subscribe(listener);
  }

  /** The number of distinct uris (and task ids) the child is subscribed to for HTTP clients. */
  get watchedUris(): number {
    return this.watched.size;
  }

  /** Starts relaying the child's list changes; call once the child is connected. */
  relayListChanges(): void {
    const subscription = this.child().listen({
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
    });
    void this.pump(subscription, (notification) => {
      const kind = LIST_KIND[notification.method];
      if (kind) this.publish({ type: "listChanged", kind });
    }).then((reason) => {
      if (reason === "failed" || reason === "completed") {
        this.report(new Error(`the child ended its list-change subscription (${reason})`));
      }
    });
  }

  watch(uri: string, signal?: AbortSignal): Promise<() => void> {
    return this.share(`uri ${uri}`, signal, () =>
      this.open(`uri ${uri}`, uri, { resourceSubscriptions: [uri] }, (notification) => {
        if (notification.method !== "notifications/resources/updated") return undefined;
        return notification.params.uri === uri ? { type: "resourceUpdated", uri } : undefined;
      }),
    );
  }

  /**
   * A listen stream of `owner` wants notifications/tasks for `taskId`: refused (left out of its
   * acknowledgement) unless the gateway relayed that task to this owner.
   */
  watchTask(taskId: string, owner: string, signal?: AbortSignal): Promise<() => void> {
    const taskOwner = this.taskOwner(taskId);
    if (taskOwner === undefined || taskOwner !== owner) {
      return Promise.reject(
        new JsonRpcError(
          ErrorCode.InvalidParams,
          "Task not found (unknown, expired, or not yours)",
        ),
      );
    }
    return this.share(`task ${taskId}`, signal, () =>
      this.open(`task ${taskId}`, taskId, { taskIds: [taskId] }, (notification) => {
        if (notification.method !== "notifications/tasks") return undefined;
        const { _meta, ...task } = notification.params;
        return task.taskId === taskId ? { type: "taskStatus", owner: taskOwner, task } : undefined;
      }),
    );
  }

  /** One child subscription per key, shared by every HTTP-side subscriber that wants it. */
  private async share(
    key: string,
    signal: AbortSignal | undefined,
    open: () => Watched,
  ): Promise<() => void> {
    const watched = this.watched.get(key) ?? open();
    watched.count++;
    let released = false;
    // The last subscriber to let go closes the child subscription, acknowledged or not yet.
    const release = () => {
      if (released) return;
      released = true;
      watched.count--;
      if (watched.count > 0 || this.watched.get(key) !== watched) return;
      this.watched.delete(key);
      void watched.subscription.close();
    };
    try {
      await (signal ? untilAborted(watched.ready, signal) : watched.ready);
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }

  /**
   * Subscribes on the child for one uri or task id (`filter` names it); `event` turns what
   * the stream brings into the event to publish.
   */
  private open(
    key: string,
    what: string,
    filter: SubscriptionFilter,
    event: (notification: SubscriptionNotification) => SubscriptionEvent | undefined,
  ): Watched {
    const subscription = this.child().listen(filter);
    const ready = subscription.acknowledged.then((honoured) => {
      const granted = filter.taskIds
        ? honoured.taskIds?.includes(what)
        : honoured.resourceSubscriptions?.includes(what);
      if (!granted) {
        // Not -32601: legacy Streamable HTTP answers that with 404, which reads "session gone".
        throw new JsonRpcError(
          ErrorCode.InvalidParams,
          `the server behind this gateway offers no subscription to ${what}`,
          filter.taskIds ? { taskId: what } : { uri: what },
        );
      }
    });
    const entry: Watched = { subscription, what, ready, count: 0 };
    this.watched.set(key, entry);
    const forget = () => {
      if (this.watched.get(key) === entry) this.watched.delete(key);
    };
    ready.catch(() => {
      forget();
      void subscription.close();
    });
    void this.pump(subscription, (notification) => {
      const published = event(notification);
      if (published) this.publish(published);
    }).then(forget); // a stream the child ended: the next watcher opens a fresh one
    return entry;
  }

  /** Reads a subscription until it ends (it queues whatever is not read); resolves with why. */
  private async pump(
    subscription: Subscription,
    deliver: (notification: SubscriptionNotification) => void,
  ): Promise<string> {
    try {
      for await (const notification of subscription) deliver(notification);
    } catch {
      // Its end says why; a refusal before the acknowledgement is reported by the caller.
    }
    return (await subscription.ended).reason;
  }
}

/** `promise`, or a rejection as soon as `signal` aborts (the listener never outlives it). */
function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
