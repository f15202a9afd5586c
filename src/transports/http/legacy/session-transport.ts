/**
 * The Transport of one legacy Streamable HTTP session, connected to the McpServer like any other
 * channel (so `initialize` makes it a legacy connection with its own state). Client ids are kept
 * as they are: one session has one client. What the server sends is routed by the revision's
 * rules: a reply and everything related to a request (progress, logs, server requests) on that
 * POST's stream; everything else on the standalone GET stream.
 */
import { LocalError } from "../../../jsonrpc/errors.js";
import type {
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcRequest,
  JsonRpcResponse,
} from "../../../jsonrpc/types.js";
import type {
  CloseInfo,
  MessageContext,
  SendOptions,
  Transport,
  TransportReceiver,
} from "../../../protocol/transport.js";
import type { ResumableStream } from "./resumable-stream.js";
import type { PostTarget } from "./stream-target.js";

export type LegacyResponseMode = "auto" | "json" | "sse";

/** What a POST reply needs from its session. */
interface ReplyHost {
  /** A new logical stream of the session (registered for resumption) answering that request. */
  newStream(requestId: JsonRpcId): ResumableStream;
}

interface PostReplyOptions {
  /** The id of the request this answers. */
  requestId: JsonRpcId;
  mode: LegacyResponseMode;
  /** Close the connection right after the priming event: the client polls and resumes. */
  disconnectAfterPriming: boolean;
}

/**
 * One POSTed request's HTTP answer: JSON when the reply comes first, else an SSE stream that
 * opens with the first related message (or at once, by policy). `target` is where it goes.
 */
export class PostReply {
  readonly method: string;
  private readonly host: ReplyHost;
  private readonly options: PostReplyOptions;
  private readonly target: PostTarget;
  private stream: ResumableStream | undefined;
  private answered = false;
  private done = false;

  constructor(method: string, host: ReplyHost, options: PostReplyOptions, target: PostTarget) {
    this.method = method;
    this.host = host;
    this.options = options;
    this.target = target;
    if (options.mode === "sse" || options.disconnectAfterPriming) this.openStream();
  }

  get finished(): boolean {
    return this.done;
  }

  /** A notification or server request related to this POST. */
  write(message: JsonRpcMessage): Promise<void> {
    if (this.done) return Promise.resolve();
    const isRequest = "method" in message && "id" in message;
    if (!this.stream) {
      if (this.options.mode === "json" && !isRequest) return Promise.resolve();
      this.openStream();
    }
    return this.stream!.write(message);
  }

  reply(message: JsonRpcResponse): Promise<void> {
    if (this.done) return Promise.resolve();
    this.done = true;
    if (this.stream) {
      const written = this.stream.write(message);
      this.stream.end();
      return written;
    }
    // Every reply in a session is 200, errors included: a legacy client reads 404 as "session
    // gone" and 400 as a transport failure, so -32601 must not borrow the modern 404.
    this.answer(200, message);
    return Promise.resolve();
  }

  /**
   * The client cancelled the request: the server sends no reply, so the HTTP answer is a
   * stream that ends without one.
   */
  cancelled(): void {
    if (this.done) return;
    this.done = true;
    if (!this.stream) this.openStream();
    this.stream?.end();
  }

  /** The session is going away with this request unanswered. */
  abandon(status: number): void {
    if (this.done) return;
    this.done = true;
    if (this.stream) this.stream.end();
    else this.answer(status);
  }

  private openStream(): void {
    const stream = this.host.newStream(this.options.requestId);
    this.stream = stream;
    if (!this.answered) {
      this.answered = true;
      stream.openOn(this.target);
    }
    if (this.options.disconnectAfterPriming) stream.disconnect();
  }

  private answer(status: number, message?: JsonRpcResponse): void {
    if (this.answered) return;
    this.answered = true;
    this.target.whole(status, message);
  }
}

export interface SessionTransportHost {
  /** The session's id (Mcp-Session-Id). */
  readonly id: string;
  /** The standalone GET stream, when the client opened one. */
  standalone(): ResumableStream | undefined;
  /**
   * A reply passed through (before it is written): `initialize` tells the negotiated version,
   * others (setLevel, subscribe) may have changed what the session keeps.
   */
  replied?(method: string, reply: JsonRpcResponse): undefined | Promise<unknown>;
  /** What goes out instead of `message` (a cluster's ids for server-to-client requests). */
  outbound?(message: JsonRpcMessage): JsonRpcMessage;
  /**
   * A message for the standalone stream, which this process does not hold: somewhere else
   * to put it (another instance of a cluster), or undefined for nowhere.
   */
  elsewhere?(message: JsonRpcMessage, origin?: string): Promise<void> | undefined;
}

export class LegacySessionTransport implements Transport {
  readonly kind = "http" as const;

  get sessionId(): string {
    return this.host.id;
  }
  readonly closed: Promise<CloseInfo>;
  private readonly host: SessionTransportHost;
  private receiver: TransportReceiver | undefined;
  /**
   * Requests being answered, by id. Made with the first and dropped with the last, so that an
   * idle session (a legacy server may keep thousands) holds no table.
   */
  private replies: Map<JsonRpcId, PostReply> | undefined;
  private isClosed = false;
  private resolveClosed!: (info: CloseInfo) => void;
  private drainWaiters: Array<() => void> | undefined;

  constructor(host: SessionTransportHost) {
    this.host = host;
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  /** Requests of this session still being handled. */
  get inFlight(): number {
    return this.replies?.size ?? 0;
  }

  /** Resolves once no request of this session is being handled (at once when none is). */
  drained(): Promise<void> {
    if (!this.replies) return Promise.resolve();
    this.drainWaiters ??= [];
    const waiters = this.drainWaiters;
    return new Promise((resolve) => waiters.push(resolve));
  }

  start(receiver: TransportReceiver): void {
    if (this.receiver) throw new Error("transport already started");
    this.receiver = receiver;
  }

  /** Whether a request with this id is still being answered (ids must be unique in flight). */
  has(id: JsonRpcId): boolean {
    return this.replies?.has(id) ?? false;
  }

  deliverRequest(request: JsonRpcRequest, reply: PostReply, context: MessageContext): void {
    if (this.isClosed || !this.receiver) {
      reply.abandon(404);
      return;
    }
    this.replies ??= new Map();
    this.replies.set(request.id, reply);
    this.receiver.message(request, context);
  }

  /** A client notification, or a client's answer to a server request. */
  deliver(message: JsonRpcMessage, context: MessageContext): void {
    if (this.isClosed || !this.receiver) return;
    this.receiver.message(message, context);
    if ("method" in message && message.method === "notifications/cancelled") {
      const requestId = message.params?.requestId;
      const reply =
        typeof requestId === "string" || typeof requestId === "number"
          ? this.replies?.get(requestId)
          : undefined;
      if (reply) {
        this.forget(requestId as JsonRpcId);
        reply.cancelled();
      }
    }
  }

  send(original: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (this.isClosed) return Promise.reject(new LocalError("closed", "session closed"));
    if (!("method" in original)) {
      const reply = original.id === null ? undefined : this.replies?.get(original.id);
      if (!reply) return Promise.resolve();
      this.forget(original.id!);
      // A reply that changed the session's shared state waits until the change is stored.
      const stored = this.host.replied?.(reply.method, original);
      if (stored) return stored.then(() => reply.reply(original));
      return reply.reply(original);
    }
    const message = this.host.outbound?.(original) ?? original;
    const related = options?.relatedRequestId;
    const reply = related === undefined ? undefined : this.replies?.get(related);
    if (reply) return reply.write(message);
    const standalone = this.host.standalone();
    if (standalone) return standalone.write(message, options?.origin);
    const forwarded = this.host.elsewhere?.(message, options?.origin);
    if (forwarded) return forwarded;
    if ("id" in message) {
      return Promise.reject(
        new LocalError(
          "transport",
          "no SSE stream to carry this server request (the client has no GET stream open)",
        ),
      );
    }
    // An unrelated notification with no GET stream: the revision has nowhere to put it.
    return Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.isClosed) return this.closed.then(() => {});
    this.isClosed = true;
    for (const [id, reply] of [...(this.replies ?? [])]) {
      reply.abandon(404);
      this.forget(id);
    }
    const info: CloseInfo = {};
    this.resolveClosed(info);
    this.receiver?.closed?.(info);
  }

  private forget(id: JsonRpcId): void {
    const replies = this.replies;
    if (!replies?.delete(id) || replies.size > 0) return;
    this.replies = undefined;
    const waiters = this.drainWaiters;
    this.drainWaiters = undefined;
    for (const resolve of waiters ?? []) resolve();
  }
}
