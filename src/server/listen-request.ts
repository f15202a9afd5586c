import { InvalidParamsError } from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import type { ClientCapabilities } from "../protocol/mcp-types.js";
import type { IncomingRequestContext } from "../protocol/session.js";
import { principalKey } from "./principal-key.js";
import type { ServerCore } from "./server-core.js";
import { parseFilter, serveListen } from "./subscriptions.js";

/** SubscriptionLimits' defaults. */
export const DEFAULT_MAX_URIS_PER_STREAM = 1_000;
export const DEFAULT_MAX_URIS_PER_CONNECTION = 10_000;

/**
 * A modern subscriptions/listen request (its _meta already checked): a stream, not a call, so
 * nothing request-scoped (progress, logs) ever travels on it. Its uris count against the
 * connection's `counter` until it ends.
 */
export async function serveListenRequest(
  core: ServerCore,
  counter: ListenUriCounter,
  params: JsonObject,
  clientCapabilities: JsonObject,
  context: IncomingRequestContext,
): Promise<JsonObject> {
  const limits = core.options.subscriptions;
  const requested = parseFilter(
    params.notifications,
    limits?.maxUrisPerStream ?? DEFAULT_MAX_URIS_PER_STREAM,
  );
  const served = core.capabilities("modern");
  const principal = context.transport.principal;
  // Task ids are honoured for an extension that offers task status (the tasks extension),
  // which may refuse the stream; it says whose tasks the stream hears.
  const owner = requested.taskIds
    ? core.listenOwner?.(clientCapabilities as ClientCapabilities, principal)
    : undefined;
  const uris = served.resources?.subscribe ? (requested.resourceSubscriptions?.length ?? 0) : 0;
  const release =
    uris > 0
      ? counter.hold(
          principal,
          uris,
          limits?.maxUrisPerConnection ?? DEFAULT_MAX_URIS_PER_CONNECTION,
        )
      : undefined;
  try {
    const result = await serveListen({
      id: context.id,
      requested,
      capabilities: served,
      owner,
      source: core.subscriptionEvents,
      notify: context.notify,
      signal: context.signal,
    });
    return core.decorateModern("subscriptions/listen", result);
  } finally {
    release?.();
  }
}

/**
 * The resource uris one connection's open listen streams watch, counted per principal (the
 * modern HTTP endpoint is one connection for every client; anonymous ones count together),
 * against SubscriptionLimits.maxUrisPerConnection. An entry goes when its last stream ends, so
 * a connection whose streams closed holds nothing.
 */
export class ListenUriCounter {
  private readonly held = new Map<string, number>();

  /** Counts `uris` for `principal`'s new stream (-32602 past `limit`); returns its release. */
  hold(principal: unknown, uris: number, limit: number): () => void {
    const key = principalKey(principal);
    const before = this.held.get(key) ?? 0;
    if (before + uris > limit) {
      throw new InvalidParamsError(
        `this client's open listen streams already watch ${before} resource uris; this server allows at most ${limit} at once`,
        { limit },
      );
    }
    this.held.set(key, before + uris);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(key) ?? uris) - uris;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    };
  }

  /** Uris counted right now, all principals together. */
  get total(): number {
    let count = 0;
    for (const uris of this.held.values()) count += uris;
    return count;
  }
}
