/**
 * The node:http fast path for the hot cases, POSTs to the endpoint: modern requests, and the
 * messages of legacy sessions (Mcp-Session-Id). The endpoint's checks run on a view of node's
 * raw headers, the body is read into a Buffer under the size limit, and the answer (JSON, or
 * SSE with res.write) goes straight to the ServerResponse. No undici Request/Response, web
 * stream or extra AbortSignal is built per request. Everything else (GET, DELETE, OPTIONS, a
 * legacy initialize, the HTTP+SSE paths) takes the web-standard core.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { parseMessage } from "../../jsonrpc/classify.js";
import { ErrorCode } from "../../jsonrpc/errors.js";
import { HEADER, type HeaderSource } from "../../protocol/http-headers.js";
import type { MessageContext, RemoteEndpoint } from "../../protocol/transport.js";
import { type HttpEndpoint, rpcErrorReply } from "./endpoint.js";
import type { EventSink, PlainReply, ReplySink } from "./exchange.js";
import { NodeEventStream } from "./node-event-stream.js";
import { NodePostTarget } from "./node-legacy.js";
import { flatHeaders, writePlain, writeResponse } from "./node-response.js";
import type { GuardedRequest } from "./resource-guard.js";
import { type HeaderPairs, headersOf, type RequestView } from "./security.js";
import { withHeaders } from "./server.js";

/**
 * node's raw header list read like a web `Headers`: names compared case-insensitively, repeated
 * fields joined with ", " (node's own `req.headers` keeps only the first of some, such as Host,
 * which would let a doubled Host pass here and fail in the web core).
 */
export class RawHeaders implements HeaderSource {
  private readonly raw: readonly string[];

  constructor(raw: readonly string[]) {
    this.raw = raw;
  }

  get(name: string): string | null {
    const { raw } = this;
    let found: string | null = null;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      if (!sameName(raw[i]!, name)) continue;
      found = found === null ? raw[i + 1]! : `${found}, ${raw[i + 1]}`;
    }
    return found;
  }

  /** A web Headers copy, for the APIs that take one. */
  toHeaders(): Headers {
    const headers = new Headers();
    for (let i = 0; i + 1 < this.raw.length; i += 2) headers.append(this.raw[i]!, this.raw[i + 1]!);
    return headers;
  }
}

/**
 * Header names compared case-insensitively, character by character: lowercased copies of the
 * names (a dozen lookups per request) were ~400 bytes of garbage per request.
 */
function sameName(key: string, name: string): boolean {
  if (key === name) return true;
  if (key.length !== name.length) return false;
  for (let i = 0; i < key.length; i++) {
    const a = key.charCodeAt(i);
    const b = name.charCodeAt(i);
    if (a === b) continue;
    // Outside ASCII (never in a valid header name), the general rule.
    if (a > 0x7f || b > 0x7f) return key.toLowerCase() === name.toLowerCase();
    const folded = a | 0x20; // ASCII letters differ from their other case in this bit only
    if (folded !== (b | 0x20) || folded < 0x61 || folded > 0x7a) return false;
  }
  return true;
}

/**
 * The request as the Host/Origin checks see it. A class, not an object literal with a getter:
 * a literal's fresh getter closure gives every request its own hidden class, whose old-space
 * accessor pair kept each request's objects alive through young-generation collections (1.5 MB
 * promoted per scavenge, a doubled young generation).
 */
class NodeRequestView implements RequestView, GuardedRequest {
  readonly headers: RawHeaders;
  private readonly req: IncomingMessage;
  private readonly origin: string;

  constructor(req: IncomingMessage, headers: RawHeaders, origin: string) {
    this.req = req;
    this.headers = headers;
    this.origin = origin;
  }

  get url(): string {
    return new URL(this.req.url ?? "/", this.origin).href;
  }

  get method(): string {
    return this.req.method ?? "POST";
  }

  /**
   * A web Request for the APIs that take one (the authentication hook, the legacy handler):
   * method, URL and headers, no body (the hook runs before the body is read; the legacy handler
   * gets the parsed message).
   */
  toRequest(): Request {
    return new Request(this.url, { method: "POST", headers: this.headers.toHeaders() });
  }
}

/** Whether the fast path serves this request: a POST to the endpoint (either era). */
export function takesFastPath(req: IncomingMessage, path: string): boolean {
  if (req.method !== "POST") return false;
  const url = req.url ?? "/";
  // Anything but the plain path (with or without a query) is left to the core's URL parsing.
  return url === path || (url.startsWith(path) && url.charCodeAt(path.length) === 0x3f);
}

/** The transport facts of one request; the Headers copy is only built if someone reads it. */
class NodeMessageContext implements MessageContext {
  readonly principal: unknown;
  private readonly raw: RawHeaders;
  private readonly socket: Socket;
  private copy: Headers | undefined;

  constructor(raw: RawHeaders, principal: unknown, socket: Socket) {
    this.raw = raw;
    this.principal = principal;
    this.socket = socket;
  }

  /** Read on demand: most requests never ask who sent them. */
  get remote(): RemoteEndpoint | undefined {
    const address = this.socket.remoteAddress;
    return address === undefined
      ? undefined
      : { network: "tcp", address, port: this.socket.remotePort };
  }

  get headers(): Headers {
    this.copy ??= this.raw.toHeaders();
    return this.copy;
  }

  header(name: string): string | null {
    return this.raw.get(name);
  }
}

const TOO_LARGE = Symbol("too large");
const GONE = Symbol("client gone");
const ignore = () => {};

/** The body, or TOO_LARGE (reading stopped at the limit), or GONE (the client went away). */
function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<Buffer | typeof TOO_LARGE | typeof GONE> {
  // Gone while the authentication hook ran: its 'close' has already been emitted.
  if (req.destroyed) return Promise.resolve(GONE);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const settle = (outcome: Buffer | typeof TOO_LARGE | typeof GONE) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("close", onGone);
      if (outcome !== TOO_LARGE && outcome !== GONE) return resolve(outcome);
      req.on("error", ignore); // a late reset must not become an uncaught 'error'
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total <= limit) {
        chunks.push(chunk);
        return;
      }
      // The rest is never read; the reply closes the connection.
      req.pause();
      settle(TOO_LARGE);
    };
    const onEnd = () => settle(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
    const onGone = () => settle(GONE);
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onGone);
    req.on("close", onGone);
  });
}

/** Where an exchange's answer goes on the fast path: the ServerResponse itself. */
class NodeReplySink implements ReplySink {
  private readonly req: IncomingMessage;
  private readonly res: ServerResponse;

  constructor(req: IncomingMessage, res: ServerResponse) {
    this.req = req;
    this.res = res;
  }

  watch(onGone: () => void): void {
    // 'close' before the reply is complete means the client left; after it, onGone is a no-op
    // (so `on`, not `once`, which wraps the listener in two more objects per request).
    if (this.res.destroyed) onGone();
    else this.res.on("close", onGone);
  }

  reply(reply: PlainReply): void {
    writePlain(this.req, this.res, reply);
  }

  openStream(headers: HeaderPairs, keepAliveMs: number): EventSink {
    if (!this.res.destroyed) this.res.writeHead(200, flatHeaders(headers));
    return new NodeEventStream(this.res, keepAliveMs);
  }

  abandon(): void {}
}

/**
 * Serves one modern POST; the caller checked takesFastPath. One async function that handles its
 * own failures, not a wrapper awaiting an inner one: that was a second async frame and promise
 * per request. (Hence `return await` for the web Responses: a returned promise's rejection
 * would escape the catch.)
 */
export async function serveFastPost(
  endpoint: HttpEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
  headers: RawHeaders,
  origin: string,
): Promise<void> {
  try {
    const view = new NodeRequestView(req, headers, origin);
    const refused = endpoint.refuse(view);
    if (refused) return writePlain(req, res, refused);
    const base = endpoint.baseHeaders(headers);
    let principal: unknown;
    const { authenticate } = endpoint.options;
    const { guard } = endpoint;
    if (guard) {
      // A cached token answers synchronously: no promise on the hot path.
      let outcome = guard.authenticate(view);
      if (outcome instanceof Promise) outcome = await outcome;
      if (outcome instanceof Response) {
        return await writeResponse(withHeaders(outcome, headersOf(base)), req, res, false);
      }
      principal = outcome;
    } else if (authenticate) {
      const outcome = await authenticate(view.toRequest());
      if (outcome instanceof Response) {
        return await writeResponse(withHeaders(outcome, headersOf(base)), req, res, false);
      }
      principal = outcome;
    }
    const badMedia = endpoint.checkMediaTypes(headers, base, true);
    if (badMedia) return writePlain(req, res, badMedia);
    if (endpoint.declaredTooLarge(headers.get("content-length"))) {
      return writePlain(req, res, endpoint.tooLarge(base));
    }
    const body = await readBody(req, endpoint.maxBodyBytes);
    if (body === GONE) return;
    if (body === TOO_LARGE) return writePlain(req, res, endpoint.tooLarge(base), true);
    // Invalid UTF-8 becomes U+FFFD and then, almost always, a JSON parse error.
    const parsed = parseMessage(body.toString("utf8"));
    if (!parsed.ok) return writePlain(req, res, endpoint.unreadable(parsed, base));
    const message = parsed.message;
    const forbidden = guard && endpoint.scopeRefusal(principal, message);
    if (forbidden) {
      return await writeResponse(withHeaders(forbidden, headersOf(base)), req, res, false);
    }
    if (endpoint.wantsLegacy(headers, message)) {
      const sessionId = headers.get(HEADER.sessionId);
      if (sessionId !== null) {
        // A message of a session: no web Request, the answer written here (node-legacy.ts).
        const context = new NodeMessageContext(headers, principal, req.socket);
        const target = (pairs: HeaderPairs) => new NodePostTarget(req, res, pairs);
        let outcome = endpoint.legacy!.postInSession(
          sessionId,
          message,
          headers,
          context,
          base,
          target,
        );
        if (outcome instanceof Promise) outcome = await outcome;
        if (outcome) await writeResponse(outcome, req, res, false);
        return;
      }
      const request = { request: view.toRequest(), base: headersOf(base), principal };
      return await writeResponse(await endpoint.legacy!.post(request, message), req, res, false);
    }
    const context = new NodeMessageContext(headers, principal, req.socket);
    const sink = new NodeReplySink(req, res);
    const answered = endpoint.serveModern(message, headers, context, base, sink);
    if (answered) writePlain(req, res, answered);
  } catch (error) {
    endpoint.server.reportError(error instanceof Error ? error : new Error(String(error)));
    if (!res.headersSent) {
      writePlain(req, res, rpcErrorReply(null, ErrorCode.InternalError, "Internal error", 500));
    } else {
      res.destroy();
    }
  }
}
