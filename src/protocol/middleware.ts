import type { JsonObject, JsonRpcId } from "../jsonrpc/types.js";
import type { RemoteEndpoint, TransportKind } from "./transport.js";
import type { Era } from "./versions.js";

/**
 * What a middleware sees of one request or notification, on either side. The server's and the
 * client's contexts add their own facts (see ServerMiddlewareContext, ClientMiddlewareContext).
 */
export interface MiddlewareContext {
  readonly method: string;
  /** What the handler (server) or the wire (client) gets; a middleware may replace it. */
  params: JsonObject;
  /** The request's `_meta` as it came (server) or as it will go (client), if any. */
  readonly meta: JsonObject | undefined;
  /** The era of the exchange; undefined while none is known (before a handshake). */
  readonly era: Era | undefined;
  /**
   * The protocol version: negotiated (legacy) or sent with the request (modern); undefined
   * while none is known (before a handshake, some notifications).
   */
  readonly protocolVersion: string | undefined;
  /** Which kind of transport carries it (undefined for a transport that does not say). */
  readonly transport: TransportKind | undefined;
  /** The other end (a server's client, a client's server) where the transport knows it. */
  readonly remote: RemoteEndpoint | undefined;
  /** The legacy session's id (Streamable HTTP `Mcp-Session-Id`), if there is one. */
  readonly sessionId: string | undefined;
  /**
   * The JSON-RPC id: the incoming request's on a server; on a client, set once the request is
   * sent (read it after `next()`). Undefined for a notification.
   */
  readonly requestId: JsonRpcId | undefined;
  /** Whoever the transport authenticated (server side, HTTP auth), if anyone. */
  readonly principal: unknown;
  /** Aborted when the request is cancelled or its carrier goes away. */
  readonly signal: AbortSignal;
  /** True for a notification: its result is ignored, and not calling next() drops it. */
  readonly notification: boolean;
  /**
   * True for what this side sends (a client's requests and its own notifications), false for
   * what it receives (everything a server middleware sees, a server's notifications to a client).
   */
  readonly sending: boolean;
}

/** Runs the rest of the chain (the next middleware, finally the handler or the wire). */
export type Next = () => Promise<JsonObject>;

/**
 * Cross-cutting work around requests: `async (ctx, next) => result`. Call `next()` at most once
 * and return what it gave (or something else); return without calling it to answer yourself.
 * The first registered runs outermost, on the way in and on the way out.
 */
export type Middleware<C extends MiddlewareContext = MiddlewareContext> = (
  ctx: C,
  next: Next,
) => JsonObject | Promise<JsonObject>;

/**
 * Marks a middleware that may have nothing to do at times (the OpenTelemetry one with no
 * provider registered): a function under this key says whether it is dormant now, and a chain
 * whose every middleware is dormant is skipped for that message, as if none were registered.
 */
export const DORMANT: unique symbol = Symbol.for("mcpwire.middleware.dormant") as never;

/** A middleware that can say it has nothing to do now (see DORMANT). */
export interface MaybeDormant {
  [DORMANT]?: () => boolean;
}

function dormant(middleware: object): boolean {
  return (middleware as MaybeDormant)[DORMANT]?.() === true;
}

/** A middleware for one method only (an extension's, say). */
export interface MethodMiddleware<C extends MiddlewareContext = MiddlewareContext> {
  method: string;
  middleware: Middleware<C>;
}

/** What a second `next()` call throws: running the rest of a chain twice is a bug. */
export class NextCalledTwiceError extends Error {
  override name = "NextCalledTwiceError";
  constructor(method: string) {
    super(`a middleware called next() more than once for ${method}`);
  }
}

export interface ComposeOptions {
  /**
   * Whether next() may be called again after it rejected (a client's retry). Never while a call
   * is in flight, never after one succeeded.
   */
  retryAfterFailure?: boolean;
}

const IDLE = 0;
const RUNNING = 1;
const FAILED = 2;
const DONE = 3;

/**
 * One context's pass through a chain: middleware in order, then `terminal`. An object with
 * methods, so that a pass allocates no closures beyond each middleware's own next(), which it
 * needs so that calling it twice is caught where it happens.
 * @internal
 */
export class ChainRun<C extends MiddlewareContext> {
  /** The terminal's promise once it ran (its latest, after a client's retry). */
  ended: Promise<JsonObject> | undefined;

  constructor(
    private readonly chain: readonly Middleware<C>[],
    private readonly terminal: (ctx: C) => Promise<JsonObject>,
    private readonly ctx: C,
    private readonly retry: boolean,
  ) {}

  /** Runs the chain from the middleware at `index` on. */
  from(index: number): Promise<JsonObject> {
    const { chain, ctx } = this;
    if (index === chain.length) {
      this.ended = this.terminal(ctx);
      return this.ended;
    }
    const next = this.retry ? this.retryingNext(index + 1) : this.onceNext(index + 1);
    try {
      return Promise.resolve(chain[index]!(ctx, next));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Without retries any second call is refused, so how the first one ends need not be
   * watched: no extra promise per middleware per pass.
   */
  private onceNext(index: number): Next {
    let called = false;
    return () => {
      if (called) throw new NextCalledTwiceError(this.ctx.method);
      called = true;
      return this.from(index);
    };
  }

  private retryingNext(index: number): Next {
    let state = IDLE;
    return () => {
      if (state === RUNNING || state === DONE) throw new NextCalledTwiceError(this.ctx.method);
      state = RUNNING;
      return this.from(index).then(
        (result) => {
          state = DONE;
          return result;
        },
        (error: unknown) => {
          state = FAILED;
          throw error;
        },
      );
    };
  }
}

/** The chain as one function: middleware in order, then `terminal` (see ChainRun). */
export function compose<C extends MiddlewareContext>(
  chain: readonly Middleware<C>[],
  terminal: (ctx: C) => Promise<JsonObject>,
  options: ComposeOptions = {},
): (ctx: C) => Promise<JsonObject> {
  const retry = options.retryAfterFailure === true;
  return (ctx) => new ChainRun(chain, terminal, ctx, retry).from(0);
}

/**
 * The middleware registered on one side, and per method the chain that applies to it. The
 * chains are made when a middleware is added, never per request: the method of a request is the
 * peer's string, and a cache keyed by it would grow without bound.
 */
export class MiddlewareStack<C extends MiddlewareContext> {
  private readonly entries: { method: string | undefined; middleware: Middleware<C> }[] = [];
  /** Middleware for every method, in registration order; undefined when there is none. */
  private everyMethod: readonly Middleware<C>[] | undefined;
  /** For each method some middleware names, the full chain (global ones interleaved in order). */
  private perMethod: Map<string, readonly Middleware<C>[]> | undefined;
  /** Some middleware can be dormant: chainFor then asks. */
  private mayDoze = false;

  /** True until the first middleware is added: the dispatchers then skip the chain entirely. */
  get empty(): boolean {
    return this.entries.length === 0;
  }

  use(middleware: Middleware<C>): void;
  use(method: string, middleware: Middleware<C>): void;
  use(first: string | Middleware<C>, second?: Middleware<C>): void {
    const method = typeof first === "string" ? first : undefined;
    const middleware = typeof first === "string" ? second : first;
    if (typeof middleware !== "function") {
      throw new TypeError("use() needs a middleware function: use(mw) or use(method, mw)");
    }
    if (method !== undefined && method.length === 0) {
      throw new TypeError("use(method, mw): the method must be a non-empty string");
    }
    this.entries.push({ method, middleware });
    this.rebuild();
  }

  /**
   * The chain for `method`, or undefined when no middleware applies to it, or when every one
   * that does is dormant now (see DORMANT).
   */
  chainFor(method: string): readonly Middleware<C>[] | undefined {
    const chain = this.perMethod?.get(method) ?? this.everyMethod;
    if (chain === undefined || !this.mayDoze) return chain;
    return chain.every(dormant) ? undefined : chain;
  }

  private rebuild(): void {
    this.mayDoze = this.entries.some(
      (entry) => typeof (entry.middleware as MaybeDormant)[DORMANT] === "function",
    );
    const global = this.entries.filter((entry) => entry.method === undefined);
    this.everyMethod = global.length > 0 ? global.map((entry) => entry.middleware) : undefined;
    const methods = new Set<string>();
    for (const entry of this.entries) if (entry.method !== undefined) methods.add(entry.method);
    this.perMethod = methods.size > 0 ? new Map() : undefined;
    for (const method of methods) {
      const chain = this.entries
        .filter((entry) => entry.method === undefined || entry.method === method)
        .map((entry) => entry.middleware);
      this.perMethod!.set(method, chain);
    }
  }
}

let neverAborted: AbortSignal | undefined;
/**
 * A signal that never fires, for contexts whose carrier cannot abort (a notification's). Made on
 * first use: Workers refuse to create an AbortController at start-up (global scope).
 */
export function neverAbortedSignal(): AbortSignal {
  neverAborted ??= new AbortController().signal;
  return neverAborted;
}
