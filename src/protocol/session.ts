import { errorResponseFor } from "../jsonrpc/classify.js";
import { ErrorCode, InternalError, JsonRpcError, LocalError } from "../jsonrpc/errors.js";
import type {
  JsonObject,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from "../jsonrpc/types.js";
import { keepLatest } from "../platform/keep-latest.js";
import { isThenable } from "../platform/thenable.js";
import { ignoring } from "../text/ignored-error.js";
import { printableLine } from "../text/printable.js";
import { IdTable } from "./id-table.js";
import { LazyAbort } from "./lazy-abort.js";
import { OutgoingRequests, type RequestOptions } from "./outgoing.js";
import type {
  CloseInfo,
  FrameError,
  MessageContext,
  SendOptions,
  Transport,
  TransportReceiver,
} from "./transport.js";

export type { RequestOptions } from "./outgoing.js";

/** What a request handler gets besides the params. */
export interface IncomingRequestContext {
  id: JsonRpcId;
  method: string;
  /** Aborted on cancellation, on transport shutdown, or when the carrier (HTTP stream) closes. */
  signal: AbortSignal;
  /** Calls `listener` once when `signal` would abort (at once if it has), without making it. */
  whenAborted?(listener: (reason: unknown) => void): () => void;
  /** Transport facts (HTTP headers, principal); empty on byte streams. */
  transport: MessageContext;
  /** Sends a notification that belongs to this request (progress, logs). Dropped once done. */
  notify(method: string, params?: JsonObject): Promise<void>;
}

export type RequestHandler = (
  params: JsonObject,
  context: IncomingRequestContext,
) => JsonObject | Promise<JsonObject>;

export type NotificationHandler = (params: JsonObject, context: MessageContext) => void;

export interface SessionOptions {
  /** Default timeout of outgoing requests (ms). Default 60 s. */
  requestTimeoutMs?: number;
  /** Hard cap on any outgoing request, progress resets included (ms). Default 10 min. */
  maxRequestTimeoutMs?: number;
  /** On input EOF: how long in-flight handlers get to finish and flush (ms). Default 2 s. */
  shutdownGraceMs?: number;
  /** Incoming requests handled at once; more are answered with an error. Default 16,384. */
  maxConcurrentRequests?: number;
  /**
   * Answer unreadable frames with -32700 / -32600 (what a server does). A client must not
   * send responses, so it only reports them through onProtocolError.
   */
  answerFrameErrors?: boolean;
  /** Called for things worth a log line: unreadable frames, replies to unknown ids, handler bugs. */
  onProtocolError?: (error: Error) => void;
  /** Called when a supervised transport lost its peer and is restarting it. */
  onInterrupted?: (error: Error) => void;
  /** Called after a supervised transport brought a fresh peer up. */
  onResumed?: () => void;
}

/**
 * Takes what no registered handler does, and hears when the session closes. One object per
 * session (a server connection is its own), so that options can be shared by many sessions.
 */
export interface SessionDispatcher {
  /** A request for which no handler is registered. Default: -32601. */
  handleRequest?(
    params: JsonObject,
    context: IncomingRequestContext,
  ): JsonObject | Promise<JsonObject>;
  /** A notification for which no handler is registered. Default: ignored. */
  handleNotification?(method: string, params: JsonObject, context: MessageContext): void;
  /** The transport closed; called before `closed` resolves. */
  sessionClosed?(info: CloseInfo): void;
  /**
   * Each notification this session sends passes through here (the middleware of whoever owns
   * the session): `send` puts it on the wire with the params given; not calling it drops it.
   */
  sendingNotification?(
    method: string,
    params: JsonObject | undefined,
    send: (params: JsonObject | undefined) => Promise<void>,
  ): Promise<void>;
  /**
   * notifications/cancelled and notifications/progress, which the engine acts on itself, pass
   * through here first (the owner's middleware): `consume` acts on the params given; not
   * calling it ignores the notification.
   */
  receivingEngineNotification?(
    method: string,
    params: JsonObject,
    context: MessageContext,
    consume: (params: JsonObject) => void,
  ): void;
}

// Per-request classes keep their latest instance, so V8 keeps their maps (keep-latest.ts).
const keepActiveRequest = keepLatest();
const keepHandlerContext = keepLatest();

/**
 * An incoming request being handled; its signal is made only when the handler first reads it
 * (see LazyAbort).
 */
class ActiveRequest extends LazyAbort {
  /** Set by notifications/cancelled: nothing more may be sent for this id. */
  cancelled = false;
  done: Promise<void> = Promise.resolve();

  constructor() {
    super();
    keepActiveRequest(this);
  }
}

/** The context a handler sees; `signal` is made on first read (see ActiveRequest). */
class HandlerRequestContext implements IncomingRequestContext {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly transport: MessageContext;
  readonly notify: IncomingRequestContext["notify"];
  private readonly entry: ActiveRequest;

  constructor(
    id: JsonRpcId,
    method: string,
    transport: MessageContext,
    entry: ActiveRequest,
    notify: IncomingRequestContext["notify"],
  ) {
    keepHandlerContext(this);
    this.id = id;
    this.method = method;
    this.transport = transport;
    this.entry = entry;
    this.notify = notify;
  }

  get signal(): AbortSignal {
    return this.entry.signal;
  }

  whenAborted(listener: (reason: unknown) => void): () => void {
    return this.entry.whenAborted(listener);
  }
}

const DEFAULTS = {
  requestTimeoutMs: 60_000,
  maxRequestTimeoutMs: 600_000,
  shutdownGraceMs: 2_000,
  maxConcurrentRequests: 16_384,
};

/**
 * One JSON-RPC peer over one transport: correlates ids, dispatches incoming requests and
 * notifications to handlers, and carries cancellation, progress and timeouts. It knows nothing
 * of MCP methods beyond `notifications/cancelled` and `notifications/progress`.
 */
export class Session {
  readonly transport: Transport;
  readonly closed: Promise<CloseInfo>;
  /** Often shared by every session of a server: never changed here. */
  private readonly options: SessionOptions;
  private readonly dispatcher: SessionDispatcher | undefined;
  /** Registered handlers; made on first registration (a server connection has none). */
  private requestHandlers: Map<string, RequestHandler> | undefined;
  private notificationHandlers: Map<string, NotificationHandler> | undefined;
  /** IdTable, not Map: entries come and go with every request (see id-table.ts). */
  private readonly active = new IdTable<ActiveRequest>();
  /** Made with the first outgoing request: most server sessions never send one. */
  private outgoingValue: OutgoingRequests | undefined;
  private shuttingDown: Promise<void> | undefined;

  constructor(transport: Transport, options: SessionOptions = {}, dispatcher?: SessionDispatcher) {
    this.transport = transport;
    this.options = options;
    this.dispatcher = dispatcher;
    this.closed = transport.closed.then((info) => {
      this.outgoingValue?.rejectAll(
        info.error ?? new LocalError("closed", "transport closed before the reply arrived"),
      );
      for (const request of this.active.values()) {
        request.abort(new LocalError("closed", "transport closed"));
      }
      try {
        this.dispatcher?.sessionClosed?.(info);
      } catch (error) {
        this.report(asError(error));
      }
      return info;
    });
  }

  private get outgoing(): OutgoingRequests {
    this.outgoingValue ??= new OutgoingRequests({
      send: (message, sendOptions) => this.transport.send(message, sendOptions),
      cancelOnWire: (id, reason) => this.cancelOnWire(id, reason),
      defaultTimeoutMs: this.options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs,
      maxTimeoutMs: this.options.maxRequestTimeoutMs ?? DEFAULTS.maxRequestTimeoutMs,
    });
    return this.outgoingValue;
  }

  /** Starts reading from the transport. Register handlers first. */
  start(): void {
    this.transport.start(new Session.Receiver(this));
  }

  setRequestHandler(method: string, handler: RequestHandler): void {
    this.requestHandlers ??= new Map();
    this.requestHandlers.set(method, handler);
  }

  /** Replaces the built-in handling of notifications/cancelled and /progress too. */
  setNotificationHandler(method: string, handler: NotificationHandler): void {
    this.notificationHandlers ??= new Map();
    this.notificationHandlers.set(method, handler);
  }

  /** Sends a request and resolves with its result; rejects with JsonRpcError or LocalError. */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return this.outgoing.request(method, params, options);
  }

  /** RequestOptions.origin of the outgoing request open under this id. */
  originOf(id: JsonRpcId): unknown {
    return this.outgoingValue?.originOf(id);
  }

  notify(method: string, params?: JsonObject, options?: SendOptions): Promise<void> {
    const dispatcher = this.dispatcher;
    if (dispatcher?.sendingNotification === undefined) {
      return this.sendNotification(method, params, options);
    }
    return dispatcher.sendingNotification(method, params, (given) =>
      this.sendNotification(method, given, options),
    );
  }

  private sendNotification(
    method: string,
    params: JsonObject | undefined,
    options: SendOptions | undefined,
  ): Promise<void> {
    const message: JsonRpcNotification =
      params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
    return this.transport.send(message, options);
  }

  /** Number of incoming requests being handled right now. */
  get activeRequests(): number {
    return this.active.size;
  }

  /** Number of outgoing requests awaiting a reply. */
  get pendingRequests(): number {
    return this.outgoingValue?.size ?? 0;
  }

  /**
   * Graceful end: abort in-flight handlers, give them `shutdownGraceMs` to reply, then close
   * the transport. Called on input EOF; callable by the application at any time.
   */
  shutdown(): Promise<void> {
    this.shuttingDown ??= this.drainThenClose();
    return this.shuttingDown;
  }

  /** Closes at once: in-flight handlers are aborted, outgoing requests rejected. */
  async close(): Promise<void> {
    for (const request of this.active.values()) {
      request.abort(new LocalError("closed", "session closed"));
    }
    await this.transport.close();
    await this.closed;
  }

  private async drainThenClose(): Promise<void> {
    const pending = this.active.values();
    for (const request of pending) {
      request.abort(new LocalError("closed", "input ended; shutting down"));
    }
    if (pending.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.options.shutdownGraceMs ?? DEFAULTS.shutdownGraceMs);
      });
      await Promise.race([Promise.allSettled(pending.map((request) => request.done)), grace]);
      clearTimeout(timer);
    }
    await this.transport.close();
    await this.closed;
  }

  private receive(message: JsonRpcMessage, context: MessageContext): void {
    if ("method" in message) {
      if ("id" in message) this.onRequest(message, context);
      else this.onNotification(message, context);
    } else {
      this.onResponse(message);
    }
  }

  private onResponse(response: JsonRpcResponse): void {
    if (!this.outgoingValue?.settle(response)) {
      // Late replies to cancelled or timed-out requests land here too: dropped quietly.
      const id = response.id === null ? "null" : JSON.stringify(response.id);
      // The id and message are the peer's text: shown escaped, and cut short.
      const detail =
        "error" in response
          ? `: ${response.error.code} ${printableLine(String(response.error.message).slice(0, 200))}`
          : "";
      this.report(
        new LocalError(
          "transport",
          `reply to unknown request id ${printableLine(id.slice(0, 200))}${detail}`,
          {
            peerFault: "reply to an unknown request id",
          },
        ),
      );
    }
  }

  private onNotification(notification: JsonRpcNotification, context: MessageContext): void {
    const { method } = notification;
    const params = notification.params ?? {};
    try {
      const handler = this.notificationHandlers?.get(method);
      if (handler) handler(params, context);
      else if (method === "notifications/cancelled" || method === "notifications/progress") {
        this.onEngineNotification(method, params, context);
      } else this.dispatcher?.handleNotification?.(method, params, context);
    } catch (error) {
      this.report(asError(error));
    }
  }

  private onEngineNotification(method: string, params: JsonObject, context: MessageContext): void {
    const consume =
      method === "notifications/cancelled"
        ? (given: JsonObject) => this.onCancelled(given)
        : (given: JsonObject) => this.outgoingValue?.progress(given);
    const dispatcher = this.dispatcher;
    if (dispatcher?.receivingEngineNotification === undefined) consume(params);
    else dispatcher.receivingEngineNotification(method, params, context, consume);
  }

  private onRequest(request: JsonRpcRequest, context: MessageContext): void {
    const { id, method } = request;
    if (this.active.has(id)) {
      this.refuse(id, {
        code: ErrorCode.InvalidRequest,
        message: `Duplicate request id ${id} in flight`,
      });
      return;
    }
    if (this.shuttingDown) {
      this.refuse(id, new InternalError("Server is shutting down").toJSON());
      return;
    }
    const limit = this.options.maxConcurrentRequests ?? DEFAULTS.maxConcurrentRequests;
    if (this.active.size >= limit) {
      this.refuse(id, new InternalError(`Too many requests in flight (limit ${limit})`).toJSON());
      return;
    }
    const handler = this.requestHandlers?.get(method);
    const entry = new ActiveRequest();
    // Only HTTP carriers have a signal; a byte stream adds no listener at all.
    const carrier = context.signal;
    const onCarrierAbort = carrier ? () => entry.abort(carrier.reason) : undefined;
    if (onCarrierAbort) carrier!.addEventListener("abort", onCarrierAbort, { once: true });
    this.active.set(id, entry);

    const handlerContext = new HandlerRequestContext(
      id,
      method,
      context,
      entry,
      (notificationMethod, params) => {
        if (entry.cancelled || this.active.get(id) !== entry) return Promise.resolve();
        return this.notify(notificationMethod, params, { relatedRequestId: id }).catch(
          ignoring("sending a request's progress or log notification"),
        );
      },
    );
    entry.done = this.run(handler, request, handlerContext, entry, carrier, onCarrierAbort);
  }

  /**
   * Runs the handler and sends its reply, built whole (no intermediate `{ result }` object). A
   * handler that answers with a plain value is replied to within this turn (no promise per
   * request, and an HTTP exchange then has nothing left to watch); a promise, once it settles.
   */
  private run(
    handler: RequestHandler | undefined,
    request: JsonRpcRequest,
    handlerContext: IncomingRequestContext,
    entry: ActiveRequest,
    carrier: AbortSignal | undefined,
    onCarrierAbort: (() => void) | undefined,
  ): Promise<void> {
    const id = request.id;
    let result: JsonObject | Promise<JsonObject>;
    try {
      const params = request.params ?? {};
      result = handler
        ? handler(params, handlerContext)
        : this.dispatchRequest(params, handlerContext);
    } catch (error) {
      return this.finish(this.failure(request, error, entry), entry, carrier, onCarrierAbort);
    }
    if (!isThenable(result)) {
      return this.finish({ jsonrpc: "2.0", id, result }, entry, carrier, onCarrierAbort);
    }
    return result.then(
      (value) => this.finish({ jsonrpc: "2.0", id, result: value }, entry, carrier, onCarrierAbort),
      (error) => this.finish(this.failure(request, error, entry), entry, carrier, onCarrierAbort),
    );
  }

  private failure(request: JsonRpcRequest, error: unknown, entry: ActiveRequest): JsonRpcResponse {
    return {
      jsonrpc: "2.0",
      id: request.id,
      error: this.toWireError(error, request.method, entry.aborted),
    };
  }

  /** The request is over: its reply goes out unless it was cancelled or its client left. */
  private finish(
    response: JsonRpcResponse,
    entry: ActiveRequest,
    carrier: AbortSignal | undefined,
    onCarrierAbort: (() => void) | undefined,
  ): Promise<void> {
    if (onCarrierAbort) carrier!.removeEventListener("abort", onCarrierAbort);
    this.active.delete(response.id!);
    if (entry.cancelled || carrier?.aborted) return Promise.resolve();
    return this.sendReply(response);
  }

  private sendReply(response: JsonRpcResponse): Promise<void> {
    return this.transport
      .send(response, { relatedRequestId: response.id ?? undefined })
      .catch((error) => this.report(asError(error)));
  }

  /** Refuses a request before any handler runs. */
  private refuse(id: JsonRpcId, error: ReturnType<JsonRpcError["toJSON"]>): void {
    void this.sendReply({ jsonrpc: "2.0", id, error });
  }

  private toWireError(error: unknown, method: string, aborted: boolean) {
    if (error instanceof JsonRpcError) return error.toJSON();
    // Never leak stacks; a LocalError (e.g. aborted) or a plain bug becomes -32603. A handler
    // that stopped because its signal fired (AbortError and the like) is no bug worth reporting.
    const message = error instanceof Error ? error.message : String(error);
    if (!(error instanceof LocalError) && !aborted) {
      this.report(new Error(`handler for ${method} failed: ${message}`, { cause: error }));
    }
    return new InternalError(message || "Internal error").toJSON();
  }

  private onCancelled(params: JsonObject): void {
    const requestId = params.requestId;
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const entry = this.active.get(requestId);
    if (!entry) return;
    entry.cancelled = true;
    const reason = typeof params.reason === "string" ? params.reason : "cancelled by peer";
    entry.abort(new LocalError("aborted", reason));
  }

  private onFrameError(error: FrameError): void {
    const description =
      error.kind === "oversized"
        ? `dropped a ${error.size}-byte message over the ${error.limit}-byte limit`
        : // A parse error's message may quote the peer's bytes.
          printableLine(error.failure.error.message);
    this.report(
      new LocalError("transport", description, {
        peerFault: error.kind === "oversized" ? "oversized message" : "unreadable message",
      }),
    );
    if (!this.options.answerFrameErrors) return;
    const response =
      error.kind === "invalid"
        ? errorResponseFor(error.failure)
        : {
            jsonrpc: "2.0" as const,
            id: null,
            error: {
              code: ErrorCode.InvalidRequest,
              message: `Message of ${error.size} bytes exceeds the ${error.limit}-byte limit`,
            },
          };
    this.transport.send(response).catch(ignoring("answering an unreadable message"));
  }

  private cancelOnWire(id: JsonRpcId, reason: string): void {
    if (this.transport.cancel?.(id, reason)) return;
    this.notify("notifications/cancelled", { requestId: id, reason }).catch(
      ignoring("sending a cancellation"),
    );
  }

  private report(error: Error): void {
    this.options.onProtocolError?.(error);
  }

  /** A request no registered handler takes: the dispatcher's, else -32601. */
  private dispatchRequest(
    params: JsonObject,
    context: IncomingRequestContext,
  ): JsonObject | Promise<JsonObject> {
    const { dispatcher } = this;
    if (dispatcher?.handleRequest) return dispatcher.handleRequest(params, context);
    throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${context.method}`);
  }

  /**
   * What the transport delivers to. A class rather than an object of closures, so that a
   * session costs one small object here (legacy HTTP servers keep thousands of idle ones);
   * declared inside Session so that it may call Session's private methods.
   */
  private static readonly Receiver = class implements TransportReceiver {
    private readonly session: Session;

    constructor(session: Session) {
      this.session = session;
    }

    message(message: JsonRpcMessage, context?: MessageContext): void {
      this.session.receive(message, context ?? {});
    }

    frameError(error: FrameError): void {
      this.session.onFrameError(error);
    }

    ended(): void {
      void this.session.shutdown();
    }

    interrupted(error: Error): void {
      this.session.outgoingValue?.rejectAll(error);
      this.session.options.onInterrupted?.(error);
    }

    resumed(): void {
      this.session.options.onResumed?.();
    }
  };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
