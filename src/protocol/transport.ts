import type { ClassifyFailure } from "../jsonrpc/classify.js";
import type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/types.js";

/**
 * Facts a transport knows about one incoming message that the protocol layer may need. Byte-stream
 * transports have none; HTTP fills in headers, an abort signal for the request's lifetime, and
 * the authenticated principal.
 */
export interface MessageContext {
  /** Aborted when the carrier of this message (an HTTP response stream, say) goes away. */
  signal?: AbortSignal;
  headers?: Headers;
  /**
   * One header's value (repeated fields joined with ", "), where the transport can read it
   * without building `headers` (the node adapter's raw list): the cheap way to one header.
   */
  header?(name: string): string | null;
  /** The client's end of this request's connection, where the transport knows it (node HTTP). */
  remote?: RemoteEndpoint;
  principal?: unknown;
  /**
   * The request whose answer stream carried this message (a Streamable HTTP client reading a
   * POST's SSE stream): a server-to-client request there belongs to that request.
   */
  relatedRequestId?: JsonRpcId;
}

/**
 * Something the transport could not read; the channel goes on after it. "invalid" frames are
 * answered by a server with -32700 / -32600 (see `failure`); "oversized" frames were dropped
 * unread up to their newline.
 */
export type FrameError =
  | {
      kind: "invalid";
      failure: ClassifyFailure;
      size: number;
      /** The start of the unreadable text (at most 200 characters), for diagnostics. */
      excerpt?: string;
    }
  | { kind: "oversized"; size: number; limit: number };

/** Why a channel closed. `error` is absent for an orderly end (EOF, close()). */
export interface CloseInfo {
  error?: Error;
}

/** Where a transport delivers what it reads. */
export interface TransportReceiver {
  message(message: JsonRpcMessage, context?: MessageContext): void;
  frameError?(error: FrameError): void;
  /**
   * The peer has finished sending (EOF) but replies can still be sent until close(). A receiver
   * that does not implement this gets the channel closed for it at once.
   */
  ended?(): void;
  /** Called once, when no more messages will arrive. */
  closed?(info: CloseInfo): void;
  /**
   * Supervised transports only: the peer went away unexpectedly (a crashed stdio child, say)
   * and the transport is restarting it. Requests in flight on the old channel are lost and
   * should be rejected with `error`. Sends wait for the restart.
   */
  interrupted?(error: Error): void;
  /** Supervised transports only: a fresh peer is ready (re-handshake, re-subscribe, retry). */
  resumed?(): void;
}

export interface SendOptions {
  /**
   * The incoming request this message belongs to (a progress or log notification, a reply).
   * Transports with per-request streams (HTTP) use it for routing; byte streams ignore it.
   */
  relatedRequestId?: JsonRpcId;
  /**
   * The message is an era probe (`server/discover` sent to find out whether the server is
   * modern). A transport that already knows its endpoint predates modern MCP may refuse it
   * locally; any other request always goes on the wire.
   */
  probe?: boolean;
  /**
   * A name this message has on every instance of a cluster (the id of the subscription event
   * it announces): a transport that could carry it on two streams at once keeps it to one.
   */
  origin?: string;
}

/**
 * Which kind of channel a transport is, as middleware sees it: "http" is Streamable HTTP (both
 * eras), "sse" the deprecated 2024-11-05 HTTP+SSE, "stream" any other byte stream.
 */
export type TransportKind = "stdio" | "socket" | "memory" | "http" | "sse" | "stream";

/**
 * The other end of a channel, as far as the transport knows it without a lookup: the network
 * (`tcp`, `unix`, `pipe`) and, where there is one, its address and port. For telemetry
 * (`server.address`, `client.address`, `network.transport`) and logs.
 */
export interface RemoteEndpoint {
  readonly network: "tcp" | "unix" | "pipe";
  /** A host name or IP address (TCP), or a socket path (Unix) when known. */
  readonly address?: string;
  readonly port?: number;
}

/**
 * The seam every transport implements: one bidirectional channel of JSON-RPC messages.
 * The protocol layer sees nothing below it.
 */
export interface Transport {
  /** What kind of channel this is (for middleware and logs); optional for custom transports. */
  readonly kind?: TransportKind;
  /** The legacy session id the channel carries (Streamable HTTP `Mcp-Session-Id`), if any. */
  readonly sessionId?: string | undefined;
  /** Who is on the other end, when the transport knows (sockets, the HTTP client). */
  readonly remote?: RemoteEndpoint | undefined;
  /** Begins reading; everything read goes to `receiver`. Called at most once. */
  start(receiver: TransportReceiver): void;
  /**
   * Sends one message. Resolves once the bytes are handed on (waiting for `drain` when the
   * underlying stream is full); rejects with a LocalError of kind "closed" after close.
   */
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void>;
  /**
   * Signals cancellation of an outgoing request the transport's own way (HTTP closes the
   * request's response stream). Returns false when the transport has no such way, and the
   * protocol layer then sends `notifications/cancelled`.
   */
  cancel?(requestId: JsonRpcId, reason?: string): boolean;
  /**
   * Client side, optional: a digest naming the credentials the next request will carry (HTTP:
   * the Authorization header of the `headers` option), never the credentials themselves.
   * Results a server marked "private" are cached per digest. Undefined: no credentials known.
   */
  authorizationContext?(): Promise<string | undefined>;
  /** Closes the channel gracefully. Idempotent; resolves when closed. */
  close(): Promise<void>;
  /** Resolves when the channel has closed, from either side. Never rejects. */
  readonly closed: Promise<CloseInfo>;
}
