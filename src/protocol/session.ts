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
import type {
  CloseInfo,
  FrameError,
  MessageContext,
  SendOptions,
  Transport,
} from "../transports/transport.js";
import { LazyAbort } from "./lazy-abort.js";
import { OutgoingRequests, type RequestOptions } from "./outgoing.js";

export type { RequestOptions } from "./outgoing.js";

/** What a request handler gets besides the params. */
export interface IncomingRequestContext {
  id: JsonRpcId;
  method: string;
  /** Aborted on cancellation, on transport shutdown, or when the carrier (HTTP stream) closes. */
  signal: AbortSignal;
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
  /** A request for which no handler is registered. Default: -32601. */
  fallbackRequestHandler?: RequestHandler;
  /** A notification for which no handler is registered. Default: ignored. */
  fallbackNotificationHandler?: (
    method: string,
    params: JsonObject,
    context: MessageContext,
  ) => void;
  /** Called when a supervised transport lost its peer and is restarting it. */
  onInterrupted?: (error: Error) => void;
  /** Called after a supervised transport brought a fresh peer up. */
  onResumed?: () => void;
}

/**
 * An incoming request being handled; its signal is made only when the handler first reads it
 * (see LazyAbort).
 */
class ActiveRequest extends LazyAbort {
  /** Set by notifications/cancelled: nothing more may be sent for this id. */
  cancelled = false;
  done: Promise<void> = Promise.resolve();
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
    this.id = id;
    this.method = method;
    this.transport = transport;
    this.entry = entry;
    this.notify = notify;
  }

  get signal(): AbortSignal {
    return this.entry.signal;
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
  private readonly options: SessionOptions;
  private readonly requestHandlers = new Map<string, RequestHandler>();
  private readonly notificationHandlers = new Map<string, NotificationHandler>();
  private readonly active = new Map<JsonRpcId, ActiveRequest>();
  /** Made with the first outgoing request: most server sessions never send one. */
  private outgoingValue: OutgoingRequests | undefined;
  private shuttingDown: Promise<void> | undefined;

  constructor(transport: Transport, options: SessionOptions = {}) {
    this.transport = transport;
    this.options = options;
    this.closed = transport.closed.then((info) => {
      this.outgoingValue?.rejectAll(
        info.error ?? new LocalError("closed", "transport closed before the reply arrived"),
      );
      for (const request of this.active.values()) {
        request.abort(new LocalError("closed", "transport closed"));
      }
      return info;
    });
    this.setNotificationHandler("notifications/cancelled", (params) => this.onCancelled(params));
    this.setNotificationHandler("notifications/progress", (params) =>
      this.outgoingValue?.progress(params),
    );
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
    this.transport.start({
      message: (message, context) => this.receive(message, context ?? {}),
      frameError: (error) => this.onFrameError(error),
      ended: () => void this.shutdown(),
      interrupted: (error) => {
        this.outgoingValue?.rejectAll(error);
        this.options.onInterrupted?.(error);
      },
      resumed: () => this.options.onResumed?.(),
    });
  }

  setRequestHandler(method: string, handler: RequestHandler): void {
    this.requestHandlers.set(method, handler);
  }

  setNotificationHandler(method: string, handler: NotificationHandler): void {
    this.notificationHandlers.set(method, handler);
  }

  /** Sends a request and resolves with its result; rejects with JsonRpcError or LocalError. */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return this.outgoing.request(method, params, options);
  }

  notify(method: string, params?: JsonObject, options?: SendOptions): Promise<void> {
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
    const pending = [...this.active.values()];
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
      const detail =
        "error" in response ? `: ${response.error.code} ${response.error.message}` : "";
      this.report(new LocalError("transport", `reply to unknown request id ${id}${detail}`));
    }
  }

  private onNotification(notification: JsonRpcNotification, context: MessageContext): void {
    const handler = this.notificationHandlers.get(notification.method);
    const fallback = this.options.fallbackNotificationHandler;
    if (!handler && !fallback) return;
    try {
      if (handler) handler(notification.params ?? {}, context);
      else fallback?.(notification.method, notification.params ?? {}, context);
    } catch (error) {
      this.report(asError(error));
    }
  }

  private onRequest(request: JsonRpcRequest, context: MessageContext): void {
    const { id, method } = request;
    if (this.active.has(id)) {
      void this.reply(id, {
        error: { code: ErrorCode.InvalidRequest, message: `Duplicate request id ${id} in flight` },
      });
      return;
    }
    if (this.shuttingDown) {
      void this.reply(id, { error: new InternalError("Server is shutting down").toJSON() });
      return;
    }
    const limit = this.options.maxConcurrentRequests ?? DEFAULTS.maxConcurrentRequests;
    if (this.active.size >= limit) {
      void this.reply(id, {
        error: new InternalError(`Too many requests in flight (limit ${limit})`).toJSON(),
      });
      return;
    }
    const handler =
      this.requestHandlers.get(method) ?? this.options.fallbackRequestHandler ?? methodNotFound;
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
        return this.notify(notificationMethod, params, { relatedRequestId: id }).catch(() => {});
      },
    );
    entry.done = this.run(handler, request, handlerContext, entry, carrier, onCarrierAbort);
  }

  private async run(
    handler: RequestHandler,
    request: JsonRpcRequest,
    handlerContext: IncomingRequestContext,
    entry: ActiveRequest,
    carrier: AbortSignal | undefined,
    onCarrierAbort: (() => void) | undefined,
  ): Promise<void> {
    const { id, method } = request;
    let reply: { result: JsonObject } | { error: ReturnType<JsonRpcError["toJSON"]> };
    try {
      reply = { result: await handler(request.params ?? {}, handlerContext) };
    } catch (error) {
      reply = { error: this.toWireError(error, method, entry.aborted) };
    } finally {
      if (onCarrierAbort) carrier!.removeEventListener("abort", onCarrierAbort);
    }
    this.active.delete(id);
    if (!entry.cancelled && !carrier?.aborted) await this.reply(id, reply);
  }

  private reply(
    id: JsonRpcId,
    body: { result: JsonObject } | { error: ReturnType<JsonRpcError["toJSON"]> },
  ): Promise<void> {
    return this.transport
      .send({ jsonrpc: "2.0", id, ...body } as JsonRpcResponse, { relatedRequestId: id })
      .catch((error) => this.report(asError(error)));
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
        : error.failure.error.message;
    this.report(new LocalError("transport", description));
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
    this.transport.send(response).catch(() => {});
  }

  private cancelOnWire(id: JsonRpcId, reason: string): void {
    if (this.transport.cancel?.(id, reason)) return;
    this.notify("notifications/cancelled", { requestId: id, reason }).catch(() => {});
  }

  private report(error: Error): void {
    this.options.onProtocolError?.(error);
  }
}

function methodNotFound(_params: JsonObject, context: IncomingRequestContext): never {
  throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${context.method}`);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
