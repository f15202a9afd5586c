/**
 * The client side of subscriptions: modern `subscriptions/listen` streams demultiplexed by
 * subscription id, and the legacy mapping (resources/subscribe plus list_changed notifications)
 * behind the same Subscription API. Both survive a supervised restart by subscribing again.
 */

import { isPlainObject, JsonRpcError, LocalError } from "../jsonrpc/errors.js";
import type { JsonObject, JsonRpcId } from "../jsonrpc/types.js";
import type { ServerCapabilities, SubscriptionFilter } from "../protocol/mcp-types.js";
import { META } from "../protocol/meta.js";
import type { RequestOptions } from "../protocol/outgoing.js";
import { honouredFilter } from "../protocol/subscription-filter.js";
import type { Era } from "../protocol/versions.js";
import { ignoring } from "../text/ignored-error.js";
import { Subscription, type SubscriptionEnd } from "./subscription.js";

/** What the registry needs from the connection. */
interface SubscriptionChannel {
  era(): Era;
  serverCapabilities(): ServerCapabilities;
  /** Sends `subscriptions/listen` with the modern `_meta` added. */
  listen(params: JsonObject, options: RequestOptions): Promise<JsonObject>;
  /** A plain request on the current era (legacy resources/subscribe|unsubscribe). */
  request(method: string, params: JsonObject): Promise<JsonObject>;
  /** True while a supervised transport is bringing a fresh server up. */
  restarting(): boolean;
  /** URIs the application subscribed itself (legacy subscribeResource): never unsubscribed here. */
  explicitUris(): ReadonlySet<string>;
}

interface Entry {
  subscription: Subscription;
  /** Modern: the current listen request; bumped by each re-subscription. */
  generation: number;
  id: JsonRpcId | undefined;
  controller: AbortController | undefined;
  /** Legacy: what this subscription is fed. */
  legacyFilter: SubscriptionFilter | undefined;
  /** Legacy: the uris counted in legacyUris for it so far. */
  legacyUris: string[];
}

const LIST_CHANGED: Record<string, keyof SubscriptionFilter> = {
  "notifications/tools/list_changed": "toolsListChanged",
  "notifications/prompts/list_changed": "promptsListChanged",
  "notifications/resources/list_changed": "resourcesListChanged",
};

export class SubscriptionRegistry {
  private readonly channel: SubscriptionChannel;
  private readonly entries = new Set<Entry>();
  /** Modern streams by subscription id (= the listen request's JSON-RPC id). */
  private readonly byId = new Map<JsonRpcId, Entry>();
  /** Legacy: how many open subscriptions want updates for each uri. */
  private readonly legacyUris = new Map<string, number>();

  constructor(channel: SubscriptionChannel) {
    this.channel = channel;
  }

  open(filter: SubscriptionFilter): Subscription {
    const requested = copyFilter(filter);
    const entry: Entry = {
      subscription: new Subscription(requested, () => this.close(entry)),
      generation: 0,
      id: undefined,
      controller: undefined,
      legacyFilter: undefined,
      legacyUris: [],
    };
    this.entries.add(entry);
    if (this.channel.era() === "modern") this.startModern(entry);
    else void this.startLegacy(entry);
    return entry.subscription;
  }

  /** URIs legacy subscriptions need on the server (renewed after a restart). */
  legacyUrisInUse(): string[] {
    return [...this.legacyUris.keys()];
  }

  /** Routes a server notification; returns nothing, the caller still sees every one. */
  route(method: string, params: JsonObject): void {
    const meta = isPlainObject(params._meta) ? params._meta : undefined;
    const id = meta?.[META.subscriptionId];
    if (typeof id === "string" || typeof id === "number") {
      const entry = this.byId.get(id);
      if (!entry) return; // a stream we closed, or not ours: dropped
      // The server tearing the stream down: no event; its completion result ends the stream.
      if (method === "notifications/cancelled") return;
      if (method === "notifications/subscriptions/acknowledged") {
        const acknowledged = isPlainObject(params.notifications) ? params.notifications : {};
        entry.subscription.acknowledge(copyFilter(acknowledged as SubscriptionFilter));
      } else {
        entry.subscription.deliver({ method, params });
      }
      return;
    }
    if (this.channel.era() !== "legacy") return;
    for (const entry of this.entries) {
      const filter = entry.legacyFilter;
      if (!filter) continue;
      const flag = LIST_CHANGED[method];
      const wanted = flag
        ? filter[flag] === true
        : method === "notifications/resources/updated" &&
          typeof params.uri === "string" &&
          filter.resourceSubscriptions?.includes(params.uri) === true;
      if (wanted) entry.subscription.deliver({ method, params });
    }
  }

  /** A fresh server is up (supervised restart): modern streams listen again. */
  resubscribe(): void {
    if (this.channel.era() !== "modern") return;
    for (const entry of this.entries) this.startModern(entry);
  }

  /** The connection closed for good: every subscription ends. */
  disconnected(error?: Error): void {
    for (const entry of [...this.entries]) this.finish(entry, { reason: "disconnected", error });
  }

  private startModern(entry: Entry): void {
    if (entry.id !== undefined) this.byId.delete(entry.id);
    const generation = ++entry.generation;
    const controller = new AbortController();
    entry.controller = controller;
    const current = () => entry.generation === generation && this.entries.has(entry);
    this.channel
      .listen(
        { notifications: entry.subscription.requested as JsonObject },
        {
          signal: controller.signal,
          noTimeout: true,
          onRequestId: (id) => {
            entry.id = id;
            this.byId.set(id, entry);
          },
        },
      )
      .then(
        () => {
          if (current()) this.finish(entry, { reason: "completed" });
        },
        (error: Error) => {
          if (!current()) return;
          if (entry.id !== undefined) this.byId.delete(entry.id);
          // A restarting server: resubscribe() opens a new stream once it is back.
          if (this.channel.restarting() && !(error instanceof JsonRpcError)) return;
          if (error instanceof JsonRpcError) this.finish(entry, { reason: "failed", error });
          else if (error instanceof LocalError && error.kind === "aborted") {
            this.finish(entry, { reason: "closed" });
          } else this.finish(entry, { reason: "disconnected", error });
        },
      );
  }

  private async startLegacy(entry: Entry): Promise<void> {
    const requested = entry.subscription.requested;
    const capabilities = this.channel.serverCapabilities();
    const honoured = honouredFilter(requested, capabilities);
    const uris = honoured.resourceSubscriptions ?? [];
    entry.legacyFilter = honoured;
    try {
      for (const uri of uris) {
        if (!this.entries.has(entry)) return; // closed meanwhile
        const count = this.legacyUris.get(uri) ?? 0;
        this.legacyUris.set(uri, count + 1);
        entry.legacyUris.push(uri);
        if (count === 0 && !this.channel.explicitUris().has(uri)) {
          await this.channel.request("resources/subscribe", { uri });
        }
      }
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.finish(entry, {
        reason: error instanceof JsonRpcError ? "failed" : "disconnected",
        error: failure,
      });
      await this.releaseLegacy(entry);
      return;
    }
    entry.subscription.acknowledge(honoured);
  }

  private async close(entry: Entry): Promise<void> {
    if (!this.entries.has(entry)) return;
    this.finish(entry, { reason: "closed" });
    // Cancels on the wire: notifications/cancelled, or closing the HTTP stream.
    entry.controller?.abort(new LocalError("aborted", "subscription closed"));
    await this.releaseLegacy(entry);
  }

  /** Legacy: unsubscribes the uris no other subscription (nor the application) still wants. */
  private async releaseLegacy(entry: Entry): Promise<void> {
    for (const uri of entry.legacyUris.splice(0)) {
      const count = (this.legacyUris.get(uri) ?? 1) - 1;
      if (count > 0) {
        this.legacyUris.set(uri, count);
        continue;
      }
      this.legacyUris.delete(uri);
      if (this.channel.explicitUris().has(uri)) continue;
      await this.channel
        .request("resources/unsubscribe", { uri })
        .catch(ignoring("unsubscribing from a resource"));
    }
  }

  private finish(entry: Entry, end: SubscriptionEnd): void {
    this.entries.delete(entry);
    if (entry.id !== undefined) this.byId.delete(entry.id);
    entry.subscription.finish(end);
  }
}

function copyFilter(filter: SubscriptionFilter): SubscriptionFilter {
  const copy: SubscriptionFilter = {};
  if (filter.toolsListChanged !== undefined) copy.toolsListChanged = filter.toolsListChanged;
  if (filter.promptsListChanged !== undefined) copy.promptsListChanged = filter.promptsListChanged;
  if (filter.resourcesListChanged !== undefined) {
    copy.resourcesListChanged = filter.resourcesListChanged;
  }
  if (Array.isArray(filter.resourceSubscriptions)) {
    copy.resourceSubscriptions = [...filter.resourceSubscriptions];
  }
  if (Array.isArray(filter.taskIds)) copy.taskIds = [...filter.taskIds];
  return copy;
}
