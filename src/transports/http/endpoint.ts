/**
 * What both front doors of the Streamable HTTP endpoint share: the web-standard handler
 * (server.ts, `(Request) => Response`) and the node:http fast path (node-fast-path.ts). Every
 * step reads headers through a HeaderSource and answers with a PlainReply, or hands the message
 * on, so a request gets the very same checks and answers whichever door it came through.
 */
import { type ClassifyFailure, errorResponseFor } from "../../jsonrpc/classify.js";
import { ErrorCode, type JsonRpcError } from "../../jsonrpc/errors.js";
import type { JsonObject, JsonRpcId, JsonRpcMessage } from "../../jsonrpc/types.js";
import type { HeaderSource } from "../../protocol/http-headers.js";
import { META } from "../../protocol/meta.js";
import type { MessageContext } from "../../protocol/transport.js";
import type { McpServerBase } from "../../server/mcp-server.js";
import {
  Exchange,
  jsonReply,
  type PlainReply,
  type ReplySink,
  type SignalCarrier,
  statusForError,
} from "./exchange.js";
import type { HttpHandlerOptions } from "./handler-options.js";
import { LegacyHandler } from "./legacy/legacy-handler.js";
import {
  acceptsBoth,
  checkModernRequest,
  claimsModern,
  isJsonContentType,
  type RequestCheckContext,
} from "./request-checks.js";
import type { ResourceGuard } from "./resource-guard.js";
import {
  type CorsOptions,
  corsHeaderPairs,
  type HeaderPairs,
  NO_HEADERS,
  type RequestView,
  securityFailure,
} from "./security.js";
import { HttpServerTransport } from "./server-transport.js";
import { DEFAULT_MAX_BACKLOG_BYTES } from "./sse.js";

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
const DEFAULT_KEEP_ALIVE_MS = 15_000;

export function rpcErrorReply(
  id: JsonRpcId | null,
  code: number,
  message: string,
  status: number,
  base: HeaderPairs = NO_HEADERS,
): PlainReply {
  return jsonReply({ jsonrpc: "2.0", id, error: { code, message } }, status, base);
}

function errorReply(id: JsonRpcId, error: JsonRpcError, base: HeaderPairs): PlainReply {
  const status = statusForError(error.code);
  return jsonReply(
    { jsonrpc: "2.0", id, error: error.toJSON() },
    status === 200 ? 400 : status,
    base,
  );
}

export class HttpEndpoint {
  readonly server: McpServerBase;
  readonly options: HttpHandlerOptions;
  readonly transport: HttpServerTransport;
  readonly connection;
  readonly cors: CorsOptions | undefined;
  readonly maxBodyBytes: number;
  readonly keepAliveMs: number;
  readonly maxBacklogBytes: number;
  /** The OAuth protected-resource guard, when the endpoint is protected. */
  readonly guard: ResourceGuard | undefined;
  /** Legacy sessions on the same endpoint, when turned on. */
  readonly legacy: LegacyHandler | undefined;
  private readonly streaming: Set<string>;
  private readonly checkContext: RequestCheckContext;

  constructor(server: McpServerBase, options: HttpHandlerOptions) {
    const legacyOptions =
      options.legacy === false || !server.legacyEnabled
        ? undefined
        : options.legacy === true || options.legacy === undefined
          ? {}
          : options.legacy;
    if (!server.modernEnabled && !legacyOptions) {
      throw new Error(
        "createHttpHandler: the McpServerBase serves no era this handler has turned on",
      );
    }
    if (options.auth && options.authenticate) {
      throw new Error("createHttpHandler: pass auth or authenticate, not both");
    }
    this.server = server;
    this.options = options;
    this.guard = options.auth;
    this.transport = new HttpServerTransport((error) => server.reportError(error));
    this.connection = server.serve(this.transport);
    // Legacy sessions have connections of their own: this one serves only modern requests.
    if (!legacyOptions) this.connection.servedVersions = server.modernVersions;
    this.cors = options.cors === true ? {} : options.cors || undefined;
    this.streaming = new Set(options.streamingMethods ?? ["subscriptions/listen"]);
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
    this.keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    this.maxBacklogBytes = options.maxStreamBacklogBytes ?? DEFAULT_MAX_BACKLOG_BYTES;
    this.legacy = legacyOptions
      ? new LegacyHandler(server, legacyOptions, {
          responseMode: options.responseMode ?? "auto",
          keepAliveMs: this.keepAliveMs,
          maxBacklogBytes: this.maxBacklogBytes,
        })
      : undefined;
    this.checkContext = {
      supportedVersions: server.modernVersions,
      // Legacy versions only where this endpoint serves them (it may have legacy turned off).
      advertisedVersions: this.connection.servedVersions,
      toolInputSchema: (name: string) => server.toolDefinition(name)?.inputSchema,
    };
  }

  /** 403 for a Host or Origin that is not allowed (checked before anything else). */
  refuse(request: RequestView): PlainReply | undefined {
    const refused = securityFailure(request, this.options);
    if (!refused) return undefined;
    return rpcErrorReply(null, ErrorCode.InvalidRequest, `Forbidden: ${refused}`, 403);
  }

  /** Headers every response to this request carries (CORS, when on: only then is Origin read). */
  baseHeaders(headers: HeaderSource): HeaderPairs {
    return this.cors ? corsHeaderPairs(headers.get("origin"), this.cors) : NO_HEADERS;
  }

  /** 406 or 415 for a POST whose Accept or Content-Type is wrong (old HTTP+SSE clients predate the Accept rule). */
  checkMediaTypes(
    headers: HeaderSource,
    base: HeaderPairs,
    acceptRule: boolean,
  ): PlainReply | undefined {
    if (acceptRule && !acceptsBoth(headers.get("accept"))) {
      return rpcErrorReply(
        null,
        ErrorCode.InvalidRequest,
        "Not Acceptable: Accept must list application/json and text/event-stream",
        406,
        base,
      );
    }
    if (!isJsonContentType(headers.get("content-type"))) {
      return rpcErrorReply(
        null,
        ErrorCode.InvalidRequest,
        "Unsupported Media Type: Content-Type must be application/json",
        415,
        base,
      );
    }
    return undefined;
  }

  /** Whether a declared Content-Length already rules the body out. */
  declaredTooLarge(contentLength: string | null): boolean {
    const declared = Number(contentLength);
    return Number.isFinite(declared) && declared > this.maxBodyBytes;
  }

  tooLarge(base: HeaderPairs): PlainReply {
    return rpcErrorReply(
      null,
      ErrorCode.InvalidRequest,
      `Payload Too Large: the limit is ${this.maxBodyBytes} bytes`,
      413,
      base,
    );
  }

  unreadable(failure: ClassifyFailure, base: HeaderPairs): PlainReply {
    return jsonReply(errorResponseFor(failure), 400, base);
  }

  /**
   * The guard's 403 when the principal lacks a scope the request needs (the method's, or the
   * one registered for its tool, prompt or resource), checked before anything is served, in
   * either era; undefined when allowed.
   */
  scopeRefusal(
    principal: unknown,
    message: JsonRpcMessage,
    guard: ResourceGuard | undefined = this.guard,
  ): Response | undefined {
    if (!guard || !("method" in message) || !("id" in message)) return undefined;
    const scopes = this.server.targetScopes(message.method, message.params);
    return guard.authorize(principal, message.method, scopes);
  }

  /** Whether a parsed POST goes to the legacy session handler rather than the modern path. */
  wantsLegacy(headers: HeaderSource, message: JsonRpcMessage): boolean {
    return (
      this.legacy !== undefined && (!this.server.modernEnabled || !claimsModern(headers, message))
    );
  }

  /**
   * Serves a modern POSTed message. Returns the reply when it is answered at once (a check
   * failed, a notification), or undefined when a handler runs and `sink` gets the answer.
   * `context` carries the transport facts (no signal: a client that leaves cancels the request
   * through its exchange, see server-transport.ts).
   */
  serveModern(
    message: JsonRpcMessage,
    headers: HeaderSource,
    context: MessageContext,
    base: HeaderPairs,
    sink: ReplySink,
    carrier?: SignalCarrier,
  ): PlainReply | undefined {
    if (!("method" in message)) {
      return rpcErrorReply(
        null,
        ErrorCode.InvalidRequest,
        "Clients may not POST responses",
        400,
        base,
      );
    }
    if (!("id" in message)) {
      // Cancellation on HTTP is closing the stream; a cancelled notification could only name
      // our internal ids, which are none of the client's business.
      if (message.method !== "notifications/cancelled") {
        this.transport.deliverNotification(message, context);
      }
      return { status: 202, headers: base, body: null };
    }
    if (message.method === "initialize") {
      // Legacy sessions are not served here; initialize would switch the shared connection.
      return rpcErrorReply(
        message.id,
        ErrorCode.MethodNotFound,
        `Method not found: initialize (this endpoint speaks ${this.server.modernVersions.join(", ")})`,
        404,
        base,
      );
    }
    const invalid = checkModernRequest(headers, message, this.checkContext);
    if (invalid) return errorReply(message.id, invalid, base);

    const mode = this.options.responseMode ?? "auto";
    const streamsAtOnce = mode === "sse" || this.streaming.has(message.method);
    if (streamsAtOnce && message.method === "tools/call") {
      // Once the stream is open the status is 200: a tool's declared capability needs are
      // checked first, so that a client without them gets the 400 -32021 must have.
      const params = message.params!;
      const declared = (params._meta as JsonObject)[META.clientCapabilities] as JsonObject;
      const refused = this.server.toolCallRefusal(params, declared);
      if (refused) return errorReply(message.id, refused, base);
    }
    const exchange = new Exchange(message.id, {
      mode,
      keepAliveMs: this.keepAliveMs,
      maxBacklogBytes: this.maxBacklogBytes,
      subscription: message.method === "subscriptions/listen",
      baseHeaders: base,
      sink,
      carrier,
    });
    if (streamsAtOnce) exchange.openStream();
    this.transport.deliverRequest(message, exchange, context);
    exchange.dispatched();
    return undefined;
  }
}
