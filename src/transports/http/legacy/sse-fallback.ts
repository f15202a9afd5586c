/**
 * The deprecated HTTP+SSE transport (2024-11-05), for old clients: GET on the SSE path opens a
 * stream whose first event, `endpoint`, names the URL to POST messages to (it carries the
 * session id); every POST is answered 202 and whatever the server sends travels on the stream.
 * The session lives as long as the stream.
 */
import { ErrorCode, LocalError } from "../../../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../../../jsonrpc/types.js";
import type {
  CloseInfo,
  MessageContext,
  Transport,
  TransportReceiver,
} from "../../../protocol/transport.js";
import type { McpServerBase } from "../../../server/mcp-server.js";
import { jsonResponse } from "../exchange.js";
import { DEFAULT_MAX_BACKLOG_BYTES, SseStream } from "../sse.js";

export interface LegacySseOptions {
  /** Where old clients open their stream. Default "/sse". */
  ssePath?: string;
  /** Where they POST (the `endpoint` event adds `?sessionId=…`). Default "/messages". */
  messagesPath?: string;
  /**
   * Sessions at once. Each holds an open stream, so none is idle enough to end for a new one:
   * beyond this a new stream gets 503. Default 1,000.
   */
  maxSessions?: number;
}

const DEFAULT_MAX_SSE_SESSIONS = 1_000;

/** One HTTP+SSE session: everything the server sends goes down the stream. */
class SseSessionTransport implements Transport {
  readonly kind = "sse" as const;
  readonly closed: Promise<CloseInfo>;
  readonly stream: SseStream;
  private receiver: TransportReceiver | undefined;
  private isClosed = false;
  private resolveClosed!: (info: CloseInfo) => void;
  private readonly maxBacklogBytes: number;
  /** The client stopped reading: the session ends (its stream is all it has). */
  private readonly onUnread: (backlog: number) => void;

  constructor(
    readonly sessionId: string,
    keepAliveMs: number,
    maxBacklogBytes: number,
    onGone: () => void,
    onUnread: (backlog: number) => void,
  ) {
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    this.stream = new SseStream({ keepAliveMs, onCancel: onGone });
    this.maxBacklogBytes = maxBacklogBytes;
    this.onUnread = onUnread;
  }

  start(receiver: TransportReceiver): void {
    if (this.receiver) throw new Error("transport already started");
    this.receiver = receiver;
  }

  deliver(message: JsonRpcMessage, context: MessageContext): void {
    if (!this.isClosed) this.receiver?.message(message, context);
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.isClosed) return Promise.reject(new LocalError("closed", "SSE session closed"));
    const backlog = this.stream.backlog;
    if (backlog > this.maxBacklogBytes) {
      this.onUnread(backlog);
      return Promise.reject(
        new LocalError("closed", "SSE session closed: its client stopped reading"),
      );
    }
    return this.stream.write(message);
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.stream.end();
    const info: CloseInfo = {};
    this.resolveClosed(info);
    this.receiver?.closed?.(info);
  }
}

interface FallbackSession {
  transport: SseSessionTransport;
  principal: unknown;
  /** An initialize has been delivered: the session's terms are set (see post). */
  initializeSeen: boolean;
  close(): Promise<void>;
}

export class SseFallback {
  readonly ssePath: string;
  readonly messagesPath: string;
  private readonly server: McpServerBase;
  private readonly keepAliveMs: number;
  private readonly maxBacklogBytes: number;
  private readonly maxSessions: number;
  private readonly sessions = new Map<string, FallbackSession>();

  constructor(
    server: McpServerBase,
    options: LegacySseOptions,
    keepAliveMs: number,
    maxBacklogBytes = DEFAULT_MAX_BACKLOG_BYTES,
  ) {
    this.server = server;
    this.ssePath = options.ssePath ?? "/sse";
    this.messagesPath = options.messagesPath ?? "/messages";
    this.keepAliveMs = keepAliveMs;
    this.maxBacklogBytes = maxBacklogBytes;
    this.maxSessions = options.maxSessions ?? DEFAULT_MAX_SSE_SESSIONS;
  }

  /** GET on the SSE path: a new session and its stream, opened by the `endpoint` event. */
  open(base: Headers, principal: unknown): Response {
    if (this.sessions.size >= this.maxSessions) {
      const headers = new Headers(base);
      headers.set("Retry-After", "5");
      const error = {
        code: ErrorCode.InternalError,
        message: "Too many HTTP+SSE sessions; retry later",
      };
      return jsonResponse({ jsonrpc: "2.0", id: null, error }, 503, headers);
    }
    const id = globalThis.crypto.randomUUID();
    const transport = new SseSessionTransport(
      id,
      this.keepAliveMs,
      this.maxBacklogBytes,
      () => void session.close(),
      (backlog) => {
        this.server.reportError(
          new LocalError(
            "transport",
            `ended an HTTP+SSE session whose client was not reading its stream (${backlog} bytes waiting)`,
            { peerFault: "response stream not read" },
          ),
        );
        void session.close();
      },
    );
    const connection = this.server.serve(transport);
    let closing: Promise<void> | undefined;
    const session: FallbackSession = {
      transport,
      principal,
      initializeSeen: false,
      close: () => {
        closing ??= (async () => {
          this.sessions.delete(id);
          await connection.session.close();
        })();
        return closing;
      },
    };
    this.sessions.set(id, session);
    const endpoint = `${this.messagesPath}?sessionId=${encodeURIComponent(id)}`;
    void transport.stream.writeText(`event: endpoint\ndata: ${endpoint}\n\n`);
    const headers = new Headers(base);
    headers.set("Content-Type", "text/event-stream");
    headers.set("Cache-Control", "no-cache, no-transform");
    headers.set("X-Accel-Buffering", "no");
    return new Response(transport.stream.body, { status: 200, headers });
  }

  /** A POSTed message of a session: 202, the answers go down its stream. */
  post(url: URL, message: JsonRpcMessage, context: MessageContext, base: Headers): Response {
    const id = url.searchParams.get("sessionId");
    const session = id === null ? undefined : this.sessions.get(id);
    if (!session || JSON.stringify(session.principal) !== JSON.stringify(context.principal)) {
      const error = { code: -32600, message: "Session not found" };
      return jsonResponse({ jsonrpc: "2.0", id: null, error }, 404, base);
    }
    if ("method" in message && "id" in message && message.method === "initialize") {
      // One initialize per session: a second would renegotiate version and capabilities.
      if (session.initializeSeen) {
        const error = {
          code: ErrorCode.InvalidRequest,
          message: "Bad Request: this session is already initialized; open a new SSE stream",
        };
        return jsonResponse({ jsonrpc: "2.0", id: message.id, error }, 400, base);
      }
      session.initializeSeen = true;
    }
    session.transport.deliver(message, context);
    return new Response("Accepted", { status: 202, headers: base });
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((session) => session.close()));
  }
}
