import { isPlainObject } from "../jsonrpc/errors.js";
import type { JsonObject, JsonRpcId } from "../jsonrpc/types.js";
import {
  compose,
  type Middleware,
  type MiddlewareContext,
  neverAbortedSignal,
} from "../protocol/middleware.js";
import { type RequestOptions, signalOf } from "../protocol/outgoing.js";
import type { RemoteEndpoint, Transport, TransportKind } from "../protocol/transport.js";
import type { Era } from "../protocol/versions.js";

/**
 * What a client middleware sees: an outgoing request (as it goes on the wire, `_meta` and all)
 * or a notification from the server.
 */
export type ClientMiddlewareContext = MiddlewareContext;

export type ClientMiddleware = Middleware<ClientMiddlewareContext>;

/** Sends one request on the wire (the end of the chain). */
type WireSend = (
  method: string,
  params: JsonObject | undefined,
  options: RequestOptions,
) => Promise<JsonObject>;

const NO_PARAMS: JsonObject = Object.freeze({}) as JsonObject;

/** What the client knows of the connection a message goes over. */
export interface ChainFacts {
  era: Era | undefined;
  protocolVersion: string | undefined;
  carrier: Transport | undefined;
}

/** One outgoing request; its id is known once the session sends it. */
class OutgoingContext implements ClientMiddlewareContext {
  readonly method: string;
  params: JsonObject;
  readonly era: Era | undefined;
  readonly protocolVersion: string | undefined;
  readonly principal = undefined;
  readonly notification = false;
  readonly sending = true;
  requestId: JsonRpcId | undefined = undefined;
  private readonly carrier: Transport | undefined;
  private readonly options: RequestOptions;

  constructor(
    method: string,
    params: JsonObject,
    era: Era | undefined,
    protocolVersion: string | undefined,
    carrier: Transport | undefined,
    options: RequestOptions,
  ) {
    this.method = method;
    this.params = params;
    this.era = era;
    this.protocolVersion = protocolVersion;
    this.carrier = carrier;
    this.options = options;
  }

  get meta(): JsonObject | undefined {
    const meta = this.params._meta;
    return isPlainObject(meta) ? meta : undefined;
  }
  get transport(): TransportKind | undefined {
    return this.carrier?.kind;
  }
  get remote(): RemoteEndpoint | undefined {
    return this.carrier?.remote;
  }
  /** Read live: a legacy HTTP session gets its id from the initialize reply. */
  get sessionId(): string | undefined {
    return this.carrier?.sessionId;
  }
  get signal(): AbortSignal {
    return signalOf(this.options) ?? neverAbortedSignal();
  }
}

/**
 * Runs `chain` around one wire request. A middleware may call next() again after it rejected
 * (a retry); each try goes out as a new request with an id of its own.
 */
export function sendThroughChain(
  chain: readonly ClientMiddleware[],
  method: string,
  params: JsonObject | undefined,
  options: RequestOptions,
  facts: ChainFacts,
  send: WireSend,
): Promise<JsonObject> {
  const ctx = new OutgoingContext(
    method,
    params ?? NO_PARAMS,
    facts.era,
    facts.protocolVersion,
    facts.carrier,
    options,
  );
  const tell = options.onRequestId;
  const sending: RequestOptions = Object.assign({}, options, {
    onRequestId: (id: JsonRpcId) => {
      ctx.requestId = id;
      tell?.(id);
    },
  });
  // Untouched empty params go as none, as they would without middleware.
  const terminal = (current: ClientMiddlewareContext) =>
    send(method, current.params === NO_PARAMS ? params : current.params, sending);
  return compose(chain, terminal, { retryAfterFailure: true })(ctx);
}

/** A notification's context, either way. */
function notificationContext(
  method: string,
  params: JsonObject,
  facts: ChainFacts,
  sending: boolean,
): ClientMiddlewareContext {
  const meta = params._meta;
  return {
    method,
    params,
    meta: isPlainObject(meta) ? meta : undefined,
    era: facts.era,
    protocolVersion: facts.protocolVersion,
    transport: facts.carrier?.kind,
    remote: facts.carrier?.remote,
    sessionId: facts.carrier?.sessionId,
    requestId: undefined,
    principal: undefined,
    signal: neverAbortedSignal(),
    notification: true,
    sending,
  };
}

/** A server's notification through the chain; `deliver` runs unless a middleware drops it. */
export function notifyThroughChain(
  chain: readonly ClientMiddleware[],
  method: string,
  params: JsonObject,
  facts: ChainFacts,
  deliver: (params: JsonObject) => void,
  report: ((error: Error) => void) | undefined,
): void {
  const terminal = async (current: ClientMiddlewareContext): Promise<JsonObject> => {
    deliver(current.params);
    return {};
  };
  compose(
    chain,
    terminal,
  )(notificationContext(method, params, facts, false)).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    report?.(new Error(`middleware for ${method} failed: ${message}`, { cause: error }));
  });
}

/**
 * A notification the client sends (`notifications/initialized`, `notifications/cancelled`, …)
 * through the chain; `send` puts it on the wire unless a middleware drops it.
 */
export async function sendNotificationThroughChain(
  chain: readonly ClientMiddleware[],
  method: string,
  params: JsonObject | undefined,
  facts: ChainFacts,
  send: (params: JsonObject | undefined) => Promise<void>,
): Promise<void> {
  // Untouched empty params go as none, as they would without middleware.
  const terminal = async (current: ClientMiddlewareContext): Promise<JsonObject> => {
    await send(current.params === NO_PARAMS ? params : current.params);
    return {};
  };
  await compose(chain, terminal)(notificationContext(method, params ?? NO_PARAMS, facts, true));
}
