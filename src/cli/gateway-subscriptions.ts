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
 *
 * Both survive a restarted child: the McpClient subscribes again on the fresh one.
 */
import type { McpClient } from "../client/mcp-client.js";
import type { Subscription, SubscriptionNotification } from "../client/subscription.js";
import { ErrorCode, JsonRpcError } from "../jsonrpc/errors.js";
import {
  InMemoryEventSource,
  type SubscriptionEvent,
  type SubscriptionEventListener,
  type SubscriptionEventSource,
} from "../server/subscriptions.js";

const LIST_KIND: Record<string, "tools" | "resources" | "prompts"> = {
  "notifications/tools/list_changed": "tools",
  "notifications/resources/list_changed": "resources",
  "notifications/prompts/list_changed": "prompts",
};

interface Watched {
  subscription: Subscription;
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
  private readonly local = new InMemoryEventSource();
  private readonly watched = new Map<string, Watched>();
  private readonly child: () => McpClient;
  private readonly report: (error: Error) => void;

  constructor(
    child: () => McpClient,
    report: (error: Error) => void,
    maxWatchesPerSubscriber = DEFAULT_MAX_URIS_PER_STREAM,
  ) {
    this.child = child;
    this.report = report;
    this.maxWatchesPerSubscriber = maxWatchesPerSubscriber;
  }

  publish(event: SubscriptionEvent): void {
    this.local.publish(event);
  }

  subscribe(listener: SubscriptionEventListener): () => void {
    return this.local.subscribe(listener);
  }

  /** The number of distinct uris the child is subscribed to for HTTP clients. */
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

  async watch(uri: string, signal?: AbortSignal): Promise<() => void> {
    let entry = this.watched.get(uri);
    if (!entry) entry = this.open(uri);
    const watched = entry;
    watched.count++;
    let released = false;
    // The last subscriber to let go closes the child subscription, acknowledged or not yet.
    const release = () => {
      if (released) return;
      released = true;
      watched.count--;
      if (watched.count > 0 || this.watched.get(uri) !== watched) return;
      this.watched.delete(uri);
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

  private open(uri: string): Watched {
    const subscription = this.child().listen({ resourceSubscriptions: [uri] });
    const ready = subscription.acknowledged.then((honoured) => {
      if (!honoured.resourceSubscriptions?.includes(uri)) {
        // Not -32601: legacy Streamable HTTP answers that with 404, which reads "session gone".
        throw new JsonRpcError(
          ErrorCode.InvalidParams,
          `the server behind this gateway offers no subscription to ${uri}`,
          { uri },
        );
      }
    });
    const entry: Watched = { subscription, ready, count: 0 };
    this.watched.set(uri, entry);
    const forget = () => {
      if (this.watched.get(uri) === entry) this.watched.delete(uri);
    };
    ready.catch(() => {
      forget();
      void subscription.close();
    });
    void this.pump(subscription, (notification) => {
      if (notification.method !== "notifications/resources/updated") return;
      if (notification.params.uri === uri) this.publish({ type: "resourceUpdated", uri });
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
