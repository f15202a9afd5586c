/**
 * The default carrier of the endpoint's requests (modern POSTs, a legacy session's POSTs, GET
 * streams and DELETE): node:http (or node:https for https: URLs) with a
 * keep-alive agent owned by the transport. Per request it costs a fraction of `fetch` (no
 * undici Request/Response, no web streams, no body stream per reply), and the agent's sockets
 * are destroyed when the transport closes, so nothing lingers.
 */
import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { urlToHttpOptions } from "node:url";
import type { PostAnswer, PostCarrier } from "./post-carrier.js";
import type { RequestCancel } from "./request-cancel.js";
import { type SseHandlers, sseFeed } from "./sse-reader.js";

/** Sockets per origin by default: requests beyond it wait for a free one. */
const DEFAULT_MAX_SOCKETS = 256;
/**
 * After the awaited reply, how long a request's SSE stream may take to end by itself (so its
 * connection goes back to the pool) before it is closed.
 */
const SSE_LINGER_MS = 200;

interface NodeCarrierOptions {
  maxSockets?: number;
}

type RequestFunction = typeof httpRequest;

/** node:https for https: URLs, node:http otherwise. */
export function nodeClientFor(url: URL): { request: RequestFunction; Agent: typeof HttpAgent } {
  return url.protocol === "https:"
    ? { request: httpsRequest as RequestFunction, Agent: HttpsAgent }
    : { request: httpRequest, Agent: HttpAgent };
}

/** Where a URL's requests go, worked out once per URL. */
interface Target {
  url: URL;
  request: RequestFunction;
  agent: HttpAgent;
  protocol: string | null | undefined;
  hostname: string | null | undefined;
  port: string | number | null | undefined;
  path: string | null | undefined;
  auth: string | null | undefined;
}

export class NodeCarrier implements PostCarrier {
  private readonly maxSockets: number;
  private readonly agents = new Map<string, HttpAgent>();
  /** The last URL posted to (a transport posts to one URL). */
  private target: Target | undefined;
  private closed = false;

  constructor(options: NodeCarrierOptions = {}) {
    this.maxSockets = options.maxSockets ?? DEFAULT_MAX_SOCKETS;
  }

  post(
    url: URL,
    headers: Record<string, string>,
    body: string,
    cancel?: RequestCancel,
  ): Promise<PostAnswer> {
    return this.send("POST", url, headers, body, cancel);
  }

  request(
    method: "GET" | "DELETE",
    url: URL,
    headers: Record<string, string>,
    cancel?: RequestCancel,
  ): Promise<PostAnswer> {
    return this.send(method, url, headers, undefined, cancel);
  }

  private send(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
    cancel: RequestCancel | undefined,
  ): Promise<PostAnswer> {
    if (cancel?.aborted) return Promise.reject(cancel.reason);
    if (this.closed) return Promise.reject(new Error("the HTTP carrier is closed"));
    const target = this.targetFor(url);
    const payload = body === undefined ? undefined : Buffer.from(body, "utf8");
    if (payload) headers["Content-Length"] = String(payload.length);
    const options: RequestOptions = {
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      path: target.path,
      auth: target.auth,
      agent: target.agent,
      method,
      headers,
    };
    return new Promise<PostAnswer>((resolve, reject) => {
      const attempt = (retry: boolean) => {
        let answered = false;
        const request = target.request(options, (response) => {
          answered = true;
          resolve(new NodeAnswer(request, response, cancel));
        });
        if (cancel) {
          const forget = cancel.onAbort((reason) => request.destroy(reason as Error));
          request.once("close", forget);
        }
        request.on("error", (error: NodeJS.ErrnoException) => {
          if (answered) return; // the answer reports its own failures
          if (cancel?.aborted) return reject(cancel.reason);
          // A kept-alive socket the server closed meanwhile: the request never reached it.
          if (retry && request.reusedSocket && isStaleSocketError(error)) return attempt(false);
          reject(error);
        });
        request.end(payload);
      };
      attempt(true);
    });
  }

  close(): void {
    this.closed = true;
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  private targetFor(url: URL): Target {
    if (this.target?.url === url) return this.target;
    const client = nodeClientFor(url);
    let agent = this.agents.get(url.protocol);
    if (!agent) {
      agent = new client.Agent({ keepAlive: true, maxSockets: this.maxSockets });
      this.agents.set(url.protocol, agent);
    }
    // Host (IPv6 brackets stripped), port, path with query, credentials: as node reads a URL.
    const parts = urlToHttpOptions(url);
    this.target = {
      url,
      request: client.request,
      agent,
      protocol: parts.protocol,
      hostname: parts.hostname,
      port: parts.port,
      path: parts.path,
      auth: parts.auth,
    };
    return this.target;
  }
}

function isStaleSocketError(error: NodeJS.ErrnoException): boolean {
  return error.code === "ECONNRESET" || error.code === "EPIPE";
}

class NodeAnswer implements PostAnswer {
  readonly status: number;
  readonly ok: boolean;
  readonly contentType: string;
  private readonly request: ClientRequest;
  private readonly response: IncomingMessage;
  private readonly cancel: RequestCancel | undefined;

  constructor(request: ClientRequest, response: IncomingMessage, cancel?: RequestCancel) {
    this.request = request;
    this.response = response;
    this.cancel = cancel;
    this.status = response.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status < 300;
    this.contentType = response.headers["content-type"] ?? "";
  }

  header(name: string): string | null {
    const value = this.response.headers[name];
    if (value === undefined) return null;
    return typeof value === "string" ? value : value.join(", ");
  }

  headers(): Headers {
    const headers = new Headers();
    const raw = this.response.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      try {
        headers.append(raw[i]!, raw[i + 1]!);
      } catch {
        // A header fetch would refuse is left out of the diagnostics copy.
      }
    }
    return headers;
  }

  text(): Promise<string> {
    const response = this.response;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.once("end", () => {
        const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        resolve(bytes.toString("utf8"));
      });
      this.onBroken(reject);
    });
  }

  sse(handlers: SseHandlers): Promise<void> {
    const response = this.response;
    response.setEncoding("utf8");
    const feed = sseFeed(handlers);
    return new Promise((resolve, reject) => {
      let finished = false;
      response.on("data", (text: string) => {
        if (finished) return; // after the reply: drained so the connection can be reused
        feed.push(text);
        if (handlers.done?.()) {
          finished = true;
          resolve();
          this.letEnd();
        }
      });
      response.once("end", () => {
        if (finished) return;
        finished = true;
        feed.end();
        resolve();
      });
      this.onBroken(reject);
    });
  }

  discard(): void {
    this.response.on("error", () => {});
    this.response.resume();
  }

  /** Rejects when the body breaks before its end: a reset, or the request aborted. */
  private onBroken(reject: (error: unknown) => void): void {
    const fail = (error?: Error) =>
      reject(
        this.cancel?.aborted
          ? this.cancel.reason
          : (error ?? new Error("the connection closed before the response ended")),
      );
    this.response.once("error", fail);
    this.response.once("close", () => {
      if (!this.response.complete) fail();
    });
  }

  /** The reply is in: give the stream a moment to end by itself, then close it. */
  private letEnd(): void {
    if (this.response.complete) return;
    const timer = setTimeout(() => this.request.destroy(), SSE_LINGER_MS);
    timer.unref();
    this.response.once("close", () => clearTimeout(timer));
  }
}
