/**
 * One POSTed request and its HTTP response: a single JSON object, or a request-scoped SSE stream
 * that opens when the first notification for the request arrives (or at once, by policy). Where
 * the response goes is a ReplySink: a web Response (the core) or a node:http response written
 * directly (the adapter's fast path); the exchange decides what is sent, the sink how.
 */
import { ErrorCode } from "../../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcNotification, JsonRpcResponse } from "../../jsonrpc/types.js";
import { keepLatest } from "../../platform/keep-latest.js";
import { cancelMacrotask, type MacrotaskHandle, macrotask } from "../../platform/scheduling.js";
import { META } from "../../protocol/meta.js";
import { replyLength } from "./reply-length.js";
import { type HeaderPairs, NO_HEADERS } from "./security.js";
import { formatSseEvent, SseStream } from "./sse.js";

export type ResponseMode = "auto" | "json" | "sse";

/** A whole reply, before it becomes a web Response or is written to a node:http response. */
export interface PlainReply {
  status: number;
  headers: HeaderPairs;
  body: string | null;
}

/** Where SSE text goes; resolves when the reader has room for more. */
export interface EventSink {
  writeText(text: string): Promise<void>;
  /**
   * Ends the response. `onDelivered` is called once the client has provably taken everything
   * written, the end included (node-delivery.ts); sinks that cannot tell never call it.
   */
  end(onDelivered?: () => void): void;
  /** Bytes written that the client has not taken yet (it grows while the client does not read). */
  readonly backlog: number;
}

/** Where an exchange's response goes. Exactly one of the three is called, once. */
export interface ReplySink {
  /** The whole reply (JSON, or an error). */
  reply(reply: PlainReply): void;
  /** A 200 SSE response with these headers; `onGone` fires if the client leaves before end(). */
  openStream(headers: HeaderPairs, keepAliveMs: number, onGone: () => void): EventSink;
  /** The client went away: settle without writing anything. */
  abandon(): void;
  /** Calls `onGone` when the client goes away (sinks that can tell; else `carrier`). */
  watch?(onGone: () => void): void;
}

interface ExchangeOptions {
  /** "auto": JSON unless a notification comes first; "json": notifications dropped; "sse": always. */
  mode: ResponseMode;
  keepAliveMs: number;
  /** A stream holding more than this for its client ends instead of growing (see overflow). */
  maxBacklogBytes: number;
  /** The request is a subscriptions/listen: its stream ends with a completion result. */
  subscription: boolean;
  /** Headers every response carries (CORS). */
  baseHeaders: HeaderPairs;
  sink: ReplySink;
  /**
   * What tells of a client that disconnects, if the caller has it: the web Request, whose
   * signal aborts then. Read only when the reply is still pending a macrotask after dispatch.
   */
  carrier?: SignalCarrier | undefined;
}

/** Anything with an AbortSignal that aborts when the client goes away (a web Request is one). */
export interface SignalCarrier {
  readonly signal: AbortSignal;
}

/** HTTP status for a JSON-RPC error sent as a whole JSON response. */
export function statusForError(code: number): number {
  switch (code) {
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400;
    default:
      return 200;
  }
}

/** A JSON reply, with its Content-Length where the runtime gains from one (reply-length.ts). */
export function jsonReply(
  body: unknown,
  status: number,
  base: HeaderPairs = NO_HEADERS,
): PlainReply {
  const text = JSON.stringify(body);
  const length = replyLength(text);
  const own = length === undefined ? JSON_ONLY : [JSON_TYPE, length];
  const headers = base.length === 0 ? own : [...base, ...own];
  return { status, headers, body: text };
}

// Lowercase, as they go on the wire (node:http's writers then have nothing to convert).
const JSON_TYPE = ["content-type", "application/json"] as const;
const JSON_ONLY: HeaderPairs = [JSON_TYPE];

export function toResponse(reply: PlainReply): Response {
  return new Response(reply.body, { status: reply.status, headers: headerInit(reply.headers) });
}

/**
 * Header pairs as a Response takes them most cheaply: a record. workerd reads a list of pairs
 * through the iterator protocol, ~26k instructions a response more than a record (callgrind).
 * A name given twice keeps the list, where a record would lose one.
 */
export function headerInit(pairs: HeaderPairs): Record<string, string> | [string, string][] {
  const record: Record<string, string> = {};
  for (const [name, value] of pairs) {
    if (record[name] !== undefined) return pairs as [string, string][];
    record[name] = value;
  }
  return record;
}

/** A JSON response with the given status. */
export function jsonResponse(body: unknown, status: number, baseHeaders?: Headers): Response {
  return toResponse(jsonReply(body, status, baseHeaders ? [...baseHeaders] : NO_HEADERS));
}

/** The headers of an SSE response. */
export function sseHeaders(base: HeaderPairs): HeaderPairs {
  return base.length === 0 ? SSE_HEADERS : [...base, ...SSE_HEADERS];
}

// Made once (read only), lowercase as they go on the wire, like JSON_TYPE.
const SSE_HEADERS: HeaderPairs = [
  ["content-type", "text/event-stream"],
  ["cache-control", "no-cache, no-transform"],
  ["x-accel-buffering", "no"],
];

// Per-request classes keep their latest instance, so V8 keeps their maps (keep-latest.ts).
const keepSink = keepLatest();
const keepExchange = keepLatest();

/**
 * The web-standard sink: the answer becomes a Response (an SseStream body for streams). A reply
 * written within the turn that dispatched it is handed back as it is (`result`), so the handler
 * returns a Response rather than a promise of one: no promise made, and none to unwrap.
 */
export class WebReplySink implements ReplySink {
  private settled: Response | undefined;
  private resolveResponse: ((response: Response) => void) | undefined;

  constructor() {
    keepSink(this);
  }

  /** The Response if the reply is written already, else a promise of it. Read once. */
  result(): Response | Promise<Response> {
    return (
      this.settled ??
      new Promise((resolve) => {
        this.resolveResponse = resolve;
      })
    );
  }

  reply(reply: PlainReply): void {
    this.settle(toResponse(reply));
  }

  openStream(headers: HeaderPairs, keepAliveMs: number, onGone: () => void): EventSink {
    const sse = new SseStream({ keepAliveMs, onCancel: onGone });
    this.settle(new Response(sse.body, { status: 200, headers: headerInit(headers) }));
    return sse;
  }

  abandon(): void {
    // Nobody is left to read this; it only settles the promise.
    this.settle(new Response(null, { status: 500 }));
  }

  private settle(response: Response): void {
    if (this.resolveResponse) this.resolveResponse(response);
    else this.settled ??= response;
  }
}

/**
 * Who hears how an exchange ends: the transport, which knows it by an internal id. (An
 * interface rather than two callbacks: no closures per request.)
 */
export interface ExchangeOwner {
  /** Nothing more will be written (replied, abandoned or failed). Called once. */
  exchangeDone(internalId: number): void;
  /** The client went away before the reply: the handler should stop. Called at most once. */
  clientGone(internalId: number): void;
  /**
   * The client stopped reading its stream (`backlog` bytes waiting, over the bound): the
   * handler should stop; the exchange ends the stream itself. Called at most once.
   */
  streamOverflowed(internalId: number, backlog: number): void;
}

/**
 * One request's response. It owns no AbortSignal: when the client goes away it tells its owner,
 * and the transport cancels the handler through the session (on Node 20 every AbortSignal
 * outlives young-generation GC together with what its listeners reach, so one per request
 * showed up as promoted memory and a doubled young generation).
 */
export class Exchange {
  readonly originalId: JsonRpcId;
  private owner: ExchangeOwner | undefined;
  private internalId = 0;
  private readonly options: ExchangeOptions;
  private responded = false;
  private done = false;
  private sse: EventSink | undefined;
  /** The carrier's signal, once listened to (see watchCarrier). */
  private watchedSignal: AbortSignal | undefined;
  /** The pending watchCarrier macrotask, cancelled when the exchange finishes first. */
  private carrierCheck: MacrotaskHandle | undefined;
  /** The client went away (its request signal, the sink, or the stream says so). */
  private readonly onRequestAbort = () => this.abandon();

  constructor(originalId: JsonRpcId, options: ExchangeOptions) {
    keepExchange(this);
    this.originalId = originalId;
    this.options = options;
    options.sink.watch?.(this.onRequestAbort);
  }

  /**
   * The request has been handed to the server. A reply still pending then is watched for its
   * client leaving, from the next macrotask on: most replies are written within the turn that
   * dispatched them (a plain-value handler's at once), and listening to the signal at once (an
   * EventTarget listener added and removed, ~20k instructions on Node; a timer on workerd)
   * would be paid for nothing. A client that left before the check is seen there, as aborted.
   */
  dispatched(): void {
    if (this.done || !this.options.carrier) return;
    this.carrierCheck = macrotask(() => this.watchCarrier());
  }

  /** Listens for the client leaving, if the reply is still pending. */
  private watchCarrier(): void {
    this.carrierCheck = undefined;
    if (this.done) return;
    const signal = this.options.carrier!.signal;
    if (signal.aborted) {
      this.abandon();
      return;
    }
    this.watchedSignal = signal;
    signal.addEventListener("abort", this.onRequestAbort, { once: true });
  }

  get finished(): boolean {
    return this.done;
  }

  /** Reports this exchange's end to `owner`, under the owner's id for it. */
  attach(owner: ExchangeOwner, internalId: number): void {
    this.owner = owner;
    this.internalId = internalId;
  }

  /** Starts the SSE response now (streaming methods, or the "sse" policy). */
  openStream(): void {
    if (this.done || this.sse) return;
    this.responded = true;
    const { sink, baseHeaders, keepAliveMs } = this.options;
    this.sse = sink.openStream(sseHeaders(baseHeaders), keepAliveMs, this.onRequestAbort);
  }

  /** A notification that belongs to this request (progress, log, subscription events). */
  notify(notification: JsonRpcNotification): Promise<void> {
    if (this.done) return Promise.resolve();
    if (!this.sse) {
      if (this.options.mode === "json") return Promise.resolve();
      this.openStream();
    }
    const sse = this.sse!;
    if (sse.backlog > this.options.maxBacklogBytes) {
      this.overflow(sse);
      return Promise.resolve();
    }
    return sse.writeText(formatSseEvent(notification));
  }

  /** The final response; its id is put back to the one the client sent. */
  async reply(response: JsonRpcResponse): Promise<void> {
    if (this.done) return;
    // Built field by field rather than spread from `response`: one fixed shape for every reply.
    const message: JsonRpcResponse =
      "error" in response
        ? { jsonrpc: "2.0", id: this.originalId, error: response.error }
        : { jsonrpc: "2.0", id: this.originalId, result: response.result };
    if (this.sse) {
      const written = this.sse.writeText(formatSseEvent(message));
      this.finish();
      await written;
      return;
    }
    const status = "error" in message ? statusForError(message.error.code) : 200;
    this.respond(jsonReply(message, status, this.options.baseHeaders));
    this.finish();
  }

  /** Ends the stream without a reply (a torn-down subscription). */
  end(): void {
    if (this.done) return;
    if (!this.sse) this.openStream();
    this.finish();
  }

  /** The server is closing (its session stops the handlers): answer what is unanswered. */
  fail(message: string): void {
    if (this.done) return;
    if (!this.responded) {
      const error = { code: ErrorCode.InternalError, message };
      this.respond(
        jsonReply({ jsonrpc: "2.0", id: this.originalId, error }, 503, this.options.baseHeaders),
      );
    }
    this.finish();
  }

  /** The client went away: cancel the handler and write nothing more. */
  abandon(): void {
    if (this.done) return;
    this.owner?.clientGone(this.internalId);
    if (!this.responded) {
      this.responded = true;
      this.options.sink.abandon();
    }
    this.finish();
  }

  /**
   * The client does not read (what waits for it is over the bound): rather than hold every
   * later event for it, stop the handler and end the stream after one last message. A listen
   * stream gets the completion result the server sends when it ends a subscription itself
   * (2026-07-28 basic/patterns/subscriptions.mdx, Graceful Closure); any other request an
   * error, so the client knows its reply is not coming.
   */
  private overflow(sse: EventSink): void {
    const backlog = sse.backlog;
    const id = this.originalId;
    const last: JsonRpcResponse = this.options.subscription
      ? {
          jsonrpc: "2.0",
          id,
          result: { resultType: "complete", _meta: { [META.subscriptionId]: id } },
        }
      : {
          jsonrpc: "2.0",
          id,
          error: {
            code: ErrorCode.InternalError,
            message: `Response stream ended: the client did not read it (${backlog} bytes were waiting)`,
          },
        };
    if (this.options.subscription) {
      // A server tearing a subscription down MUST say so with notifications/cancelled first
      // (2026-07-28 basic/patterns/cancellation.mdx).
      const reason = "subscription ended by the server: the client did not read its stream";
      const params = { requestId: id, reason, _meta: { [META.subscriptionId]: id } };
      void sse.writeText(
        formatSseEvent({ jsonrpc: "2.0", method: "notifications/cancelled", params }),
      );
    }
    void sse.writeText(formatSseEvent(last));
    // Finished first: whatever the stopping handler still sends finds the exchange closed.
    this.finish();
    this.owner?.streamOverflowed(this.internalId, backlog);
  }

  private respond(reply: PlainReply): void {
    if (this.responded) return;
    this.responded = true;
    this.options.sink.reply(reply);
  }

  private finish(): void {
    this.done = true;
    // A reply written before the check: nothing to watch, and no macrotask left to run (on Bun
    // and Node a pending immediate costs an event-loop pass of its own at one request in flight).
    if (this.carrierCheck !== undefined) {
      cancelMacrotask(this.carrierCheck);
      this.carrierCheck = undefined;
    }
    this.sse?.end();
    this.watchedSignal?.removeEventListener("abort", this.onRequestAbort);
    this.owner?.exchangeDone(this.internalId);
  }
}
