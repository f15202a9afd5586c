import { InternalError, isPlainObject, JsonRpcError } from "../jsonrpc/errors.js";
import type { JsonObject, JsonRpcId } from "../jsonrpc/types.js";
import type { ClientCapabilities } from "../protocol/mcp-types.js";
import {
  ChainRun,
  compose,
  type Middleware,
  type MiddlewareContext,
  neverAbortedSignal,
} from "../protocol/middleware.js";
import type { IncomingRequestContext } from "../protocol/session.js";
import type {
  CloseInfo,
  MessageContext,
  RemoteEndpoint,
  Transport,
  TransportKind,
} from "../protocol/transport.js";
import type { Era } from "../protocol/versions.js";

/** What a server middleware sees: the shared facts plus what the client declared. */
export interface ServerMiddlewareContext extends MiddlewareContext {
  /** What the client declared (its `initialize`, or this request's `_meta`). */
  readonly clientCapabilities: ClientCapabilities | undefined;
  /**
   * One header of the HTTP request the message came in (trace context, say); undefined off
   * HTTP or when absent. Cheap: no Headers object is built for it.
   */
  header(name: string): string | undefined;
  /**
   * Settles when the channel the message came on closes: a legacy session's end, a stdio or
   * socket connection's. Modern requests over HTTP share their endpoint's channel.
   */
  readonly channelClosed: Promise<CloseInfo>;
}

export type ServerMiddleware = Middleware<ServerMiddlewareContext>;

/** The era facts a request was routed with. */
export interface RoutedRequest {
  era: Era;
  protocolVersion: string | undefined;
  clientCapabilities: ClientCapabilities | undefined;
  meta: JsonObject | undefined;
}

/**
 * One incoming request's context. Made for every request a middleware sees, so it holds what it
 * was given and answers the rest from its prototype's getters: the abort signal, say, is made
 * only if a middleware reads it.
 */
export class RequestMiddlewareContext<R extends RoutedRequest = RoutedRequest>
  implements ServerMiddlewareContext
{
  params: JsonObject;
  /** As the request arrived: a transport may name its session only once it is established. */
  readonly sessionId: string | undefined;
  /**
   * For the handler at the chain's end, which reads the request's facts here rather than
   * from a closure made per request.
   */
  readonly routed: R;
  readonly request: IncomingRequestContext;
  private readonly carrier: Transport;

  constructor(
    params: JsonObject,
    routed: R,
    request: IncomingRequestContext,
    transport: Transport,
  ) {
    this.params = params;
    this.sessionId = transport.sessionId;
    this.routed = routed;
    this.request = request;
    this.carrier = transport;
  }

  get method(): string {
    return this.request.method;
  }
  get meta(): JsonObject | undefined {
    return this.routed.meta;
  }
  get era(): Era {
    return this.routed.era;
  }
  get protocolVersion(): string | undefined {
    return this.routed.protocolVersion;
  }
  get clientCapabilities(): ClientCapabilities | undefined {
    return this.routed.clientCapabilities;
  }
  get transport(): TransportKind | undefined {
    return this.carrier.kind;
  }
  get notification(): false {
    return false;
  }
  get sending(): false {
    return false;
  }
  get requestId(): JsonRpcId {
    return this.request.id;
  }
  get principal(): unknown {
    return this.request.transport.principal;
  }
  header(name: string): string | undefined {
    return headerOf(this.request.transport, name);
  }
  /** This request's own (an HTTP client's address), else the channel's (a socket's peer). */
  get remote(): RemoteEndpoint | undefined {
    return this.request.transport.remote ?? this.carrier.remote;
  }
  get signal(): AbortSignal {
    return this.request.signal;
  }
  get channelClosed(): Promise<CloseInfo> {
    return this.carrier.closed;
  }
}

/**
 * Runs `chain` around `serve`, then `finish` (if given) on the result. The handler's own failures
 * pass through untouched (the session answers them as before); a middleware's JsonRpcError
 * becomes the error reply, and anything else it throws is reported and answered -32603 with
 * nothing of it leaked.
 */
export function runRequestChain<R extends RoutedRequest>(
  chain: readonly ServerMiddleware[],
  params: JsonObject,
  routed: R,
  request: IncomingRequestContext,
  transport: Transport,
  serve: (ctx: RequestMiddlewareContext<R>) => Promise<JsonObject>,
  report: (error: Error) => void,
  finish?: (method: string, result: JsonObject) => JsonObject,
): Promise<JsonObject> {
  const ctx = new RequestMiddlewareContext(params, routed, request, transport);
  const run = new ChainRun(chain, serve, ctx, false);
  const chained = run.from(0);
  const finished = finish && ((result: JsonObject) => finish(ctx.method, result));
  // The chain handed back the handler's own promise (a middleware returned what next() gave):
  // whatever it fails with is the handler's, passed through untouched, so nothing need watch it.
  if (chained === run.ended) return finished ? chained.then(finished) : chained;
  return chained.then(finished, (error: unknown) =>
    chainFailure(error, run.ended, ctx.method, request, report),
  );
}

/**
 * What a failed chain answers. The handler's promise is kept bare: whether a failure was the
 * handler's is asked only when the chain fails, so a request that succeeds pays for no
 * wrapper around it.
 */
async function chainFailure(
  error: unknown,
  handled: Promise<JsonObject> | undefined,
  method: string,
  request: IncomingRequestContext,
  report: (error: Error) => void,
): Promise<never> {
  if (error instanceof JsonRpcError) throw error;
  if (handled && (await handled.then(NOT_FAILED, (failure) => failure === error))) throw error;
  if (!request.signal.aborted) report(middlewareFailure(method, error));
  throw new InternalError();
}

/**
 * A notification's way through the chain; `deliver` runs, with the params a middleware may have
 * replaced, unless a middleware drops it.
 */
export function runNotificationChain(
  chain: readonly ServerMiddleware[],
  method: string,
  params: JsonObject,
  routed: RoutedRequest | undefined,
  message: MessageContext,
  transport: Transport,
  deliver: (params: JsonObject) => void,
  report: (error: Error) => void,
): void {
  const ctx: ServerMiddlewareContext = {
    method,
    params,
    meta: routed?.meta,
    era: routed?.era,
    protocolVersion: routed?.protocolVersion,
    clientCapabilities: routed?.clientCapabilities,
    transport: transport.kind,
    remote: message.remote ?? transport.remote,
    sessionId: transport.sessionId,
    requestId: undefined,
    principal: message.principal,
    header: (name) => headerOf(message, name),
    signal: message.signal ?? neverAbortedSignal(),
    notification: true,
    sending: false,
    channelClosed: transport.closed,
  };
  const terminal = async (current: ServerMiddlewareContext): Promise<JsonObject> => {
    deliver(current.params);
    return {};
  };
  compose(chain, terminal)(ctx).catch((error: unknown) => report(middlewareFailure(method, error)));
}

/**
 * A notification the server sends (progress, a log message, a list change, a resource update)
 * through the chain; `send` puts it on the wire unless a middleware drops it. Its related
 * request, if any, is not known here: `requestId` is undefined.
 */
export async function runSentNotificationChain(
  chain: readonly ServerMiddleware[],
  method: string,
  params: JsonObject | undefined,
  routed: RoutedRequest,
  transport: Transport,
  send: (params: JsonObject | undefined) => Promise<void>,
): Promise<void> {
  const given = params ?? NO_PARAMS;
  const meta = given._meta;
  const ctx: ServerMiddlewareContext = {
    method,
    params: given,
    meta: isPlainObject(meta) ? meta : undefined,
    era: routed.era,
    protocolVersion: routed.protocolVersion,
    clientCapabilities: routed.clientCapabilities,
    transport: transport.kind,
    remote: transport.remote,
    sessionId: transport.sessionId,
    requestId: undefined,
    principal: undefined,
    header: () => undefined,
    signal: neverAbortedSignal(),
    notification: true,
    sending: true,
    channelClosed: transport.closed,
  };
  // Untouched empty params go as none, as they would without middleware.
  const terminal = async (current: ServerMiddlewareContext): Promise<JsonObject> => {
    await send(current.params === NO_PARAMS ? params : current.params);
    return {};
  };
  await compose(chain, terminal)(ctx);
}

const NO_PARAMS: JsonObject = Object.freeze({}) as JsonObject;

const NOT_FAILED = (): boolean => false;

function headerOf(message: MessageContext, name: string): string | undefined {
  const value = message.header ? message.header(name) : message.headers?.get(name);
  return value ?? undefined;
}

function middlewareFailure(method: string, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  return new Error(`middleware for ${method} failed: ${message}`, { cause: error });
}
