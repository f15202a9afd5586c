/**
 * `subscriptions/listen` (2026-07-28 basic/patterns/subscriptions.mdx): a long-lived request
 * that streams the notification types its filter asked for, tagged with the request's id, until
 * the client cancels it or the server ends it with a completion result.
 */

import { InvalidParamsError, isPlainObject, LocalError } from "../jsonrpc/errors.js";
import type { JsonObject, JsonRpcId } from "../jsonrpc/types.js";
import type { ServerCapabilities, SubscriptionFilter } from "../protocol/mcp-types.js";
import { META } from "../protocol/meta.js";
import { honouredFilter } from "../protocol/subscription-filter.js";
import { ignoreError, ignoring } from "../text/ignored-error.js";
import { withEventId } from "./event-ids.js";

/** Something a listen stream may carry. */
export type SubscriptionEvent = (
  | { type: "listChanged"; kind: "tools" | "resources" | "prompts" }
  | { type: "resourceUpdated"; uri: string }
  /**
   * A task changed; `owner` is its owner key (taskOwner), `task` the DetailedTask to send,
   * `legacySession` the key of the 2025-11-25 session that made it (TaskRecord.legacySession).
   */
  | { type: "taskStatus"; owner: string; task: JsonObject; legacySession?: string }
) & {
  /**
   * Names the event alike on every instance that hears it (set when it is published), so
   * that a legacy session moving between instances never gets one event on two streams.
   */
  id?: string;
};

export type SubscriptionEventListener = (event: SubscriptionEvent) => void;

/**
 * Where a server publishes changes and where its listen streams (and legacy sessions) hear
 * them. In memory by default; a shared bus implementing this fans events out across instances.
 */
export interface SubscriptionEventSource {
  publish(event: SubscriptionEvent): void;
  /** Returns the function that stops listening. */
  subscribe(listener: SubscriptionEventListener): () => void;
  /**
   * Optional, for a source fed by another server (a gateway relaying its child): a client
   * began wanting `notifications/resources/updated` for `uri` (a listen stream's
   * resourceSubscriptions, a legacy resources/subscribe). Resolves once updates will flow,
   * with the function to call when that client stops wanting them. A rejection refuses the
   * uri: a listen stream leaves it out of its acknowledgement, resources/subscribe fails.
   * `signal` aborts when that client stops wanting it before then (its stream ended): the
   * watch should give up (and reject) rather than hold what it was setting up.
   */
  watch?(uri: string, signal?: AbortSignal): Promise<() => void>;
  /**
   * Optional, the same for a listen stream's `taskIds` (the tasks extension): a stream whose
   * principal has the owner key `owner` (taskOwner) wants notifications/tasks for `taskId`. A
   * rejection leaves the id out of the acknowledgement.
   */
  watchTask?(taskId: string, owner: string, signal?: AbortSignal): Promise<() => void>;
  /**
   * With watch(): the most uris (and, with watchTask(), task ids) one listen stream may ask
   * for. Each watch may cost the source real resources (a gateway's subscription on its
   * child), so more is refused with -32602.
   */
  readonly maxWatchesPerSubscriber?: number;
  /**
   * True for a source that several server processes share (mcpwire/redis): such a server
   * refuses to start without a shared `mrtr.secret` (see checkClusterSecret).
   */
  readonly sharedAcrossInstances?: boolean;
}

/** One process, no persistence: every listener hears every event published after it joined. */
export class InMemoryEventSource implements SubscriptionEventSource {
  private readonly listeners = new Set<SubscriptionEventListener>();

  publish(published: SubscriptionEvent): void {
    const event = withEventId(published);
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        // One broken listener must not starve the others.
        ignoreError("a subscription event listener threw", error);
      }
    }
  }

  subscribe(listener: SubscriptionEventListener): () => void {
    // A wrapper, so the same function may subscribe twice and unsubscribe independently.
    const entry: SubscriptionEventListener = (event) => listener(event);
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

/**
 * What one client may subscribe to (McpServerOptions.subscriptions): every uri a stream or
 * session watches costs memory for as long as it is open, and each event is matched against it.
 */
export interface SubscriptionLimits {
  /**
   * Most `resourceSubscriptions` (and, alike, `taskIds`) in one subscriptions/listen request;
   * more is -32602 naming the cap. Default 1,000.
   */
  maxUrisPerStream?: number;
  /**
   * Most resource uris one connection watches at once: a legacy session's resources/subscribe,
   * or the listen streams open on one connection. The modern HTTP endpoint is one connection
   * for every client, so there it counts per principal (every anonymous client together).
   * More is -32602 naming the cap. Default 10,000.
   */
  maxUrisPerConnection?: number;
}

const BOOLEAN_FIELDS = ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] as const;

/**
 * Reads `params.notifications`; a malformed filter is -32602, and so is a list longer than
 * `maxPerStream` (checked before anything is copied).
 */
export function parseFilter(
  value: unknown,
  maxPerStream = Number.POSITIVE_INFINITY,
): SubscriptionFilter {
  if (!isPlainObject(value)) {
    throw new InvalidParamsError('subscriptions/listen needs a "notifications" filter object');
  }
  const filter: SubscriptionFilter = {};
  for (const field of BOOLEAN_FIELDS) {
    const flag = value[field];
    if (flag === undefined) continue;
    if (typeof flag !== "boolean")
      throw new InvalidParamsError(`notifications.${field} must be a boolean`);
    filter[field] = flag;
  }
  const uris = value.resourceSubscriptions;
  if (uris !== undefined) {
    tooMany(uris, "resourceSubscriptions", maxPerStream);
    if (!Array.isArray(uris) || !uris.every((uri) => typeof uri === "string")) {
      throw new InvalidParamsError("notifications.resourceSubscriptions must be a list of URIs");
    }
    filter.resourceSubscriptions = [...new Set(uris as string[])];
  }
  const taskIds = value.taskIds;
  if (taskIds !== undefined) {
    tooMany(taskIds, "taskIds", maxPerStream);
    if (!Array.isArray(taskIds) || !taskIds.every((taskId) => typeof taskId === "string")) {
      throw new InvalidParamsError("notifications.taskIds must be a list of task ids");
    }
    filter.taskIds = [...new Set(taskIds as string[])];
  }
  return filter;
}

function tooMany(list: unknown, field: string, limit: number): void {
  if (Array.isArray(list) && list.length > limit) {
    throw new InvalidParamsError(
      `subscriptions/listen asks for ${list.length} ${field}; this server allows at most ${limit} per stream`,
      { limit },
    );
  }
}

const LIST_FLAG = {
  tools: "toolsListChanged",
  prompts: "promptsListChanged",
  resources: "resourcesListChanged",
} as const;

/**
 * The notification an event becomes under `filter`, or undefined when it was not asked for.
 * A task's status goes only to a stream of the principal owning it (`owner`, its taskOwner
 * key): naming someone else's task id in a filter must reveal nothing.
 */
function notificationFor(
  event: SubscriptionEvent,
  filter: SubscriptionFilter,
  owner?: string,
): { method: string; params: JsonObject } | undefined {
  if (event.type === "listChanged") {
    if (!filter[LIST_FLAG[event.kind]]) return undefined;
    return { method: `notifications/${event.kind}/list_changed`, params: {} };
  }
  if (event.type === "taskStatus") {
    if (owner !== event.owner || !filter.taskIds?.includes(event.task.taskId as string)) {
      return undefined;
    }
    return { method: "notifications/tasks", params: event.task };
  }
  if (!filter.resourceSubscriptions?.includes(event.uri)) return undefined;
  return { method: "notifications/resources/updated", params: { uri: event.uri } };
}

interface ListenInputs {
  /** The listen request's id: the subscription id on every message of the stream. */
  id: JsonRpcId;
  requested: SubscriptionFilter;
  capabilities: ServerCapabilities;
  /**
   * The stream's principal as a task owner key (taskOwner), given only when the server offers
   * the tasks extension; taskIds are honoured only with it.
   */
  owner?: string;
  source: SubscriptionEventSource;
  /** Sends a notification tied to the listen request (its HTTP stream, when there is one). */
  notify(method: string, params: JsonObject): Promise<void>;
  /** Aborted by client cancellation, a closed carrier, or server shutdown. */
  signal: AbortSignal;
}

/**
 * Serves one listen stream: the acknowledgement first, then every matching event, until the
 * signal aborts. Resolves with the completion result, after notifications/cancelled; the session
 * sends them only when the server ended the stream (shutdown), never after the client cancelled
 * or the stream closed.
 */
export async function serveListen(inputs: ListenInputs): Promise<JsonObject> {
  const { id, signal, notify, source } = inputs;
  let filter = honouredFilter(inputs.requested, inputs.capabilities);
  // Task ids are honoured when the caller gave an owner: it does so only for a server offering
  // the tasks extension (extensions/tasks/tasks.md), so this file needs no tasks code.
  if (inputs.requested.taskIds && inputs.owner !== undefined) {
    filter.taskIds = [...inputs.requested.taskIds];
  }
  const completion: JsonObject = { resultType: "complete", _meta: { [META.subscriptionId]: id } };
  const releases: Array<() => void> = [];
  const watch = source.watch?.bind(source);
  const watchTask = source.watchTask?.bind(source);
  // Both checked before anything is set up, so that a refusal leaves nothing behind.
  if (watch) checkWatchLimit(filter.resourceSubscriptions, "resource subscriptions", source);
  if (watchTask) checkWatchLimit(filter.taskIds, "task ids", source);
  if (watch && filter.resourceSubscriptions?.length) {
    const uris = filter.resourceSubscriptions;
    const kept = await watchEach(uris, signal, releases, (uri) => watch(uri, signal));
    if (kept) filter = { ...filter, resourceSubscriptions: kept };
  }
  if (watchTask && filter.taskIds?.length && !signal.aborted) {
    const owner = inputs.owner ?? "";
    const kept = await watchEach(filter.taskIds, signal, releases, (taskId) =>
      watchTask(taskId, owner, signal),
    );
    if (kept) filter = { ...filter, taskIds: kept };
  }
  const release = () => {
    for (const stop of releases.splice(0)) stop();
  };
  const tagged = (params: JsonObject): JsonObject => ({
    ...params,
    _meta: { [META.subscriptionId]: id },
  });
  /**
   * The stream ends here. A server tearing it down MUST send notifications/cancelled naming
   * the listen request (2026-07-28 basic/patterns/cancellation.mdx), and SHOULD answer it with
   * the completion result (subscriptions.mdx, Graceful Closure). The notification goes first:
   * cancellations may only name requests still in progress. When the client ended the
   * stream, the session drops both (cancelled by the client, or its HTTP stream is gone).
   */
  const end = async (): Promise<JsonObject> => {
    release();
    const reason = signal.reason instanceof LocalError ? signal.reason.message : "server ended it";
    await notify(
      "notifications/cancelled",
      tagged({ requestId: id, reason: `subscription ended by the server: ${reason}` }),
    ).catch(ignoring("telling a listen stream it ended"));
    return completion;
  };
  if (signal.aborted) return end();
  // Sent before joining the source, in one synchronous step: nothing can overtake it.
  void notify("notifications/subscriptions/acknowledged", tagged({ notifications: { ...filter } }));
  const unsubscribe = source.subscribe((event) => {
    if (signal.aborted) return;
    const notification = notificationFor(event, filter, inputs.owner);
    if (notification) void notify(notification.method, tagged(notification.params));
  });
  return new Promise((resolve) => {
    signal.addEventListener(
      "abort",
      () => {
        unsubscribe();
        resolve(end());
      },
      { once: true },
    );
  });
}

/** Each watch may cost the source real resources: more than it allows per stream is -32602. */
function checkWatchLimit(
  items: string[] | undefined,
  what: string,
  source: SubscriptionEventSource,
): void {
  const limit = source.maxWatchesPerSubscriber;
  if (items && limit !== undefined && items.length > limit) {
    throw new InvalidParamsError(
      `subscriptions/listen asks for ${items.length} ${what}; this server allows at most ${limit} per stream`,
      { limit },
    );
  }
}

/**
 * Starts a watch per item and returns the items being watched, their release functions added
 * to `releases`; undefined when the stream ended meanwhile. The acknowledgement must only
 * promise what will flow, so items the source refused are left out.
 */
async function watchEach(
  items: string[],
  signal: AbortSignal,
  releases: Array<() => void>,
  watch: (item: string) => Promise<() => void>,
): Promise<string[] | undefined> {
  const watching = items.map(watch);
  const outcomes = await settledUnlessAborted(watching, signal);
  if (outcomes === undefined) {
    // The stream ended first (and ends below): nothing it set up may outlive it, however late
    // that arrives.
    for (const pending of watching) pending.then((stop) => stop(), ignore);
    return undefined;
  }
  const kept: string[] = [];
  outcomes.forEach((outcome, index) => {
    if (outcome.status !== "fulfilled") return;
    releases.push(outcome.value);
    kept.push(items[index]!);
  });
  return kept;
}

/** Every watch's outcome, or undefined as soon as `signal` aborts. */
function settledUnlessAborted(
  watching: Promise<() => void>[],
  signal: AbortSignal,
): Promise<PromiseSettledResult<() => void>[] | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    void Promise.allSettled(watching).then((outcomes) => {
      signal.removeEventListener("abort", onAbort);
      resolve(signal.aborted ? undefined : outcomes);
    });
  });
}

function ignore(): void {}
