/**
 * The conventions as middleware on the one seam: `server.use(otelServerMiddleware())` and
 * `client.use(otelClientMiddleware())`. The server traces every request and notification it
 * handles (SERVER spans, parented by the trace context in `_meta`, else the HTTP header). The
 * client traces every request it sends (CLIENT spans, their context written into `_meta`) and
 * every notification the server sends it (SERVER spans: the receiver's side). Multi round-trip
 * retries hang under the round before them (rounds.ts).
 */
import type { Attributes, Context } from "@opentelemetry/api";
import type { ClientMiddleware, ClientMiddlewareContext } from "../client/middleware-chain.js";
import type { JsonObject, JsonRpcId } from "../jsonrpc/types.js";
import {
  DORMANT,
  type MaybeDormant,
  type MiddlewareContext,
  type Next,
} from "../protocol/middleware.js";
import type { TransportKind } from "../protocol/transport.js";
import type { ServerMiddleware, ServerMiddlewareContext } from "../server/middleware-chain.js";
import type { CaptureOptions, NetworkFacts, OperationFacts } from "./attributes.js";
import { ATTR, NETWORK_TRANSPORT } from "./conventions.js";
import { recording, recordingAnything } from "./instruments.js";
import { observeOperation } from "./operation.js";
import { injectIntoMeta } from "./propagation.js";
import { RoundTrail } from "./rounds.js";
import { ServerSessions } from "./session.js";

/** Options of both middleware: the conventions' opt-ins. */
export interface OtelMiddlewareOptions extends CaptureOptions {}

const HTTP: NetworkFacts = Object.freeze({
  transport: NETWORK_TRANSPORT.tcp,
  protocolName: "http",
});
const PIPE: NetworkFacts = Object.freeze({ transport: NETWORK_TRANSPORT.pipe });

/** `network.*` by transport kind (the conventions' "Recording MCP transport" table). */
function networkOfKind(kind: TransportKind | undefined): NetworkFacts | undefined {
  switch (kind) {
    case "http":
    case "sse":
      return HTTP;
    case "stdio":
      return PIPE;
    default:
      return undefined;
  }
}

/**
 * The kind's facts, refined by the other end where the transport knows it (sockets, HTTP).
 * Built field by field: spreads into a literal make a new object shape per call.
 */
function networkOf(ctx: MiddlewareContext): NetworkFacts | undefined {
  const byKind = networkOfKind(ctx.transport);
  const remote = ctx.remote;
  if (remote === undefined) return byKind;
  const facts: NetworkFacts = { transport: remote.network };
  if (byKind?.protocolName !== undefined) facts.protocolName = byKind.protocolName;
  if (byKind?.protocolVersion !== undefined) facts.protocolVersion = byKind.protocolVersion;
  if (remote.address !== undefined) facts.peerAddress = remote.address;
  if (remote.port !== undefined) facts.peerPort = remote.port;
  return facts;
}

/**
 * The facts of one operation, read from the context; the request id when asked, since a client
 * learns it only once the request is sent, after the span began. A class rather than a literal
 * with a getter: V8 builds such a literal through the runtime, as a slow dictionary object.
 */
class ContextFacts implements OperationFacts {
  readonly method: string;
  readonly params: JsonObject | undefined;
  readonly protocolVersion: string | undefined;
  readonly sessionId: string | undefined;
  readonly network: NetworkFacts | undefined;
  private readonly ctx: MiddlewareContext;

  constructor(ctx: MiddlewareContext) {
    this.ctx = ctx;
    this.method = ctx.method;
    this.params = ctx.params;
    this.protocolVersion = ctx.protocolVersion;
    this.sessionId = ctx.sessionId;
    this.network = networkOf(ctx);
  }

  get requestId(): JsonRpcId | undefined {
    return this.ctx.requestId;
  }
}

function factsOf(ctx: MiddlewareContext): OperationFacts {
  return new ContextFacts(ctx);
}

/**
 * Server side: a SERVER span for each request and notification handled, a CLIENT span for each
 * notification sent (progress, log messages, list changes, resource updates), and the duration
 * of each session (session.ts): a legacy one once its initialize succeeded.
 */
export function otelServerMiddleware(options: OtelMiddlewareOptions = {}): ServerMiddleware {
  const capture = { ...options };
  const sessions = new ServerSessions();
  const middleware = (ctx: ServerMiddlewareContext, next: Next) => {
    if (ctx.sending) return sent(ctx, next, capture);
    // Nothing registered: not even the context is read (an HTTP request's header copy is not free).
    if (!recording("server")) return next();
    const facts = factsOf(ctx);
    let run = next;
    if (sessions.starts(ctx)) {
      const startedAt = performance.now();
      const timeWith = (version: unknown) =>
        sessions.time(ctx, startedAt, sessionAttributes(version, facts.network));
      if (ctx.method === "initialize") {
        run = async () => {
          const result = await next();
          timeWith(result.protocolVersion);
          return result;
        };
      } else timeWith(ctx.protocolVersion);
    }
    return observeOperation("server", facts, run, {
      capture,
      received: { meta: ctx.meta, header: (name) => ctx.header(name) },
    });
  };
  return asleepWithoutProviders(middleware);
}

/**
 * With no provider registered the middleware has nothing to record on either side: it says so,
 * and the server or client then skips it, whose requests cost what they would with none.
 */
function asleepWithoutProviders<M extends object>(middleware: M): M & MaybeDormant {
  return Object.assign(middleware, {
    [DORMANT]: () => !recordingAnything(),
  });
}

/**
 * What this side sends: a CLIENT span, its trace context written into a copy of `_meta`.
 * `rounds`: a request's multi round-trip trail (rounds.ts).
 */
function sent(
  ctx: MiddlewareContext,
  next: Next,
  capture: CaptureOptions,
  rounds?: RoundTrail,
): Promise<JsonObject> {
  if (!recording("client")) return next();
  const run = (propagate: Context) => {
    const meta = injectIntoMeta(ctx.meta, propagate);
    if (meta !== ctx.meta) ctx.params = { ...ctx.params, _meta: meta as JsonObject };
    return next();
  };
  if (rounds === undefined) return observeOperation("client", factsOf(ctx), run, { capture });
  return observeOperation("client", factsOf(ctx), run, {
    capture,
    fallbackParent: rounds.previous(ctx.params),
    settled: (span, result) => rounds.note(result, span),
  });
}

/** A session's attributes: its protocol version and network. */
function sessionAttributes(version: unknown, network: NetworkFacts | undefined): Attributes {
  const attributes: Attributes = {};
  if (typeof version === "string") attributes[ATTR.protocolVersion] = version;
  if (network?.transport) attributes[ATTR.networkTransport] = network.transport;
  if (network?.protocolName) attributes[ATTR.networkProtocolName] = network.protocolName;
  return attributes;
}

/**
 * Client side: a CLIENT span for each request and notification sent, its trace context written
 * into a copy of `params._meta` (the HTTP transport copies `traceparent` into a header too), and
 * a SERVER span for each notification the server sends.
 */
export function otelClientMiddleware(options: OtelMiddlewareOptions = {}): ClientMiddleware {
  const capture = { ...options };
  const rounds = new RoundTrail();
  const middleware = (ctx: ClientMiddlewareContext, next: Next) => {
    if (ctx.sending) return sent(ctx, next, capture, ctx.notification ? undefined : rounds);
    if (!recording("server")) return next();
    return observeOperation("server", factsOf(ctx), next, {
      capture,
      received: { meta: ctx.meta },
    });
  };
  return asleepWithoutProviders(middleware);
}
