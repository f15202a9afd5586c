/**
 * Serves the web-standard handler on node:http: request bodies stream in (the handler enforces
 * the size limit as it reads), responses stream out with backpressure, and a client that goes
 * away aborts its request. Modern POSTs to a handler made by createHttpHandler take the fast
 * path (node-fast-path.ts), and so do legacy session POSTs: same checks and answers, no web
 * Request/Response in between.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { McpServerBase } from "../../server/mcp-server.js";
import { awaitFirstRequest, firstRequestArrived } from "./node-connections.js";
import { requestArrived } from "./node-delivery.js";
import { RawHeaders, serveFastPost, takesFastPath } from "./node-fast-path.js";
import { writeResponse } from "./node-response.js";
import {
  createHttpHandler,
  endpointOf,
  type HttpHandler,
  type HttpHandlerOptions,
} from "./server.js";
import { keepTickObjectShape } from "./tick-shape.js";

export interface NodeListenerOptions {
  /** The MCP endpoint path; other paths get 404. Default "/mcp". */
  path?: string;
  /** The origin used to build Request URLs (the Host header still travels as a header). */
  origin?: string;
}

export interface ServeHttpOptions extends HttpHandlerOptions {
  /** Interface to bind. Default 127.0.0.1 (loopback: see allowedHosts for other names). */
  host?: string;
  /** Port; 0 (default) picks a free one. */
  port?: number;
  path?: string;
  /** Time a client gets to send the request headers (ms). Default 30 s. */
  headersTimeoutMs?: number;
  /** Time a client gets to send the whole request, body included (ms). Default 60 s. */
  requestTimeoutMs?: number;
  /**
   * A connection that sends no request for this long after it opened is closed (ms). Default
   * 10 s; 0 turns it off. (headersTimeoutMs starts only with a request's first byte.)
   */
  firstRequestTimeoutMs?: number;
  /** Most connections open at once; more are closed as they arrive. Default: no cap. */
  maxConnections?: number;
}

export interface ServedHttp {
  /** The MCP endpoint, e.g. http://127.0.0.1:53211/mcp. */
  url: string;
  server: Server;
  handler: HttpHandler;
  /** Ends open responses, stops listening and closes every connection. */
  close(): Promise<void>;
}

/** A node:http request listener for the handler (also usable as Express/Connect middleware). */
export function createNodeListener(
  handler: HttpHandler,
  options: NodeListenerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const path = options.path ?? "/mcp";
  const origin = options.origin ?? "http://localhost";
  const fast = endpointOf(handler);
  keepTickObjectShape();
  return (req, res) => {
    requestArrived(req.socket);
    firstRequestArrived(req.socket);
    const serving =
      fast && takesFastPath(req, path)
        ? serveFastPost(fast, req, res, new RawHeaders(req.rawHeaders), origin)
        : serveOne(handler, req, res, path, origin);
    void serving.catch((error) => {
      if (!res.headersSent) {
        res.statusCode = 500;
        res.end();
      } else {
        res.destroy(error instanceof Error ? error : undefined);
      }
    });
  };
}

export async function serveHttp(
  mcpServer: McpServerBase,
  options: ServeHttpOptions = {},
): Promise<ServedHttp> {
  const {
    host = "127.0.0.1",
    port = 0,
    path = "/mcp",
    headersTimeoutMs = 30_000,
    requestTimeoutMs = 60_000,
    firstRequestTimeoutMs = 10_000,
    maxConnections,
    ...handlerOptions
  } = options;
  const handler = createHttpHandler(mcpServer, handlerOptions);
  const server = createServer({
    // Node checks the two timeouts on this interval (30 s by default, too coarse for short limits).
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, headersTimeoutMs / 4)),
  });
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = Math.max(requestTimeoutMs, headersTimeoutMs);
  if (maxConnections !== undefined) server.maxConnections = maxConnections;
  if (firstRequestTimeoutMs > 0) {
    server.on("connection", (socket: Socket) => awaitFirstRequest(socket, firstRequestTimeoutMs));
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const origin = `http://${hostPart}:${address.port}`;
  handlerOptions.auth?.useEndpointUrl?.(`${origin}${path}`);
  server.on("request", createNodeListener(handler, { path, origin }));
  let closing: Promise<void> | undefined;
  return {
    url: `${origin}${path}`,
    server,
    handler,
    close: () => {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await handler.close();
        server.closeAllConnections();
        await stopped;
      })();
      return closing;
    },
  };
}

async function serveOne(
  handler: HttpHandler,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  origin: string,
): Promise<void> {
  const target = new URL(req.url ?? "/", origin);
  if (target.pathname !== path && !handler.extraPaths.includes(target.pathname)) {
    res.writeHead(404, { "Content-Type": "text/plain" }).end("Not Found");
    return;
  }
  const abort = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) abort.abort(new Error("client disconnected"));
  });
  let bodyAbandoned = false;
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const init: RequestInit & { duplex?: "half" } = {
    method: fetchableMethod(req.method),
    headers,
    signal: abort.signal,
  };
  if (hasBody) {
    init.body = bodyStream(req, () => {
      bodyAbandoned = true;
    });
    init.duplex = "half";
  }
  const response = await handler.handle(new Request(target, init));
  if (abort.signal.aborted) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  await writeResponse(response, req, res, bodyAbandoned);
}

/**
 * `Request` refuses TRACE, TRACK and CONNECT (fetch forbids them), which made them a 500. No
 * endpoint serves them: the handler sees a stand-in it never allows and answers 405 with Allow.
 */
function fetchableMethod(method = "GET"): string {
  return FETCH_FORBIDDEN.has(method.toUpperCase()) ? "UNSUPPORTED" : method;
}
const FETCH_FORBIDDEN = new Set(["TRACE", "TRACK", "CONNECT"]);

/** The request body as a web stream that pauses the socket when the reader falls behind. */
function bodyStream(req: IncomingMessage, onAbandon: () => void): ReadableStream<Uint8Array> {
  let detach = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const onData = (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      };
      const onEnd = () => {
        detach();
        controller.close();
      };
      const onError = (error: Error) => {
        detach();
        controller.error(error);
      };
      detach = () => {
        req.off("data", onData);
        req.off("end", onEnd);
        req.off("error", onError);
        req.on("error", () => {}); // a late reset must not become an uncaught 'error'
      };
      req.on("data", onData);
      req.on("end", onEnd);
      req.on("error", onError);
    },
    pull() {
      req.resume();
    },
    cancel() {
      // Whatever node:http still reads from this request must not reach a cancelled stream.
      detach();
      req.pause();
      onAbandon();
    },
  });
}
