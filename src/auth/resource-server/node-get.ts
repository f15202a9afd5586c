/**
 * The fetch a protected resource uses by default for the few documents it reads from its
 * authorization server (metadata, JWKS): GET only, over node:http / node:https. Why not the
 * global fetch: its first use starts undici's client (a connection pool and an HTTP parser
 * compiled to WebAssembly), some 12 MiB of resident memory in a server that otherwise never
 * makes an outgoing request (bench/RESULTS.md, issue 15).
 *
 * The same rules as the fetch it replaces, and a few of its own: https, or plain http to a
 * loopback address only; no redirects followed (a 3xx is handed back as it is); the caller's
 * AbortSignal aborts the request; a body over MAX_BODY_BYTES is refused.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isLoopbackUrl } from "../../transports/http/client/auth.js";

/** Metadata and key sets are small; anything bigger is not buffered. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Statuses whose Response must not have a body (the Fetch standard's null body statuses). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export async function nodeGet(
  input: string | URL | Request,
  init?: RequestInit,
): Promise<Response> {
  if (typeof input !== "string" && !(input instanceof URL)) {
    throw new TypeError("nodeGet: pass the URL (a string or URL), not a Request");
  }
  const url = new URL(input);
  const method = init?.method ?? "GET";
  if (method !== "GET") throw new TypeError(`nodeGet: GET only, not ${method}`);
  const secure = url.protocol === "https:";
  if (!secure && !(url.protocol === "http:" && isLoopbackUrl(url))) {
    throw new TypeError(
      `nodeGet: ${url.origin} is not https (plain http is allowed for loopback addresses only)`,
    );
  }
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value;
  });
  const signal = init?.signal ?? undefined;
  signal?.throwIfAborted();
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = (secure ? httpsRequest : httpRequest)(url, {
      method,
      headers,
      signal,
      // A new connection each time: these are a few requests an hour, no pool worth keeping.
      agent: false,
    });
    request.once("response", resolve);
    // `on`: a socket error during the body is emitted here too (and must not go unhandled).
    request.on("error", (error) => reject(signal?.aborted ? signal.reason : error));
    request.end();
  });
  const body = await readCapped(response, signal);
  const status = response.statusCode ?? 0;
  return new Response(NULL_BODY.has(status) ? null : body, {
    status,
    statusText: response.statusMessage ?? "",
    headers: headerPairs(response.rawHeaders),
  });
}

/** The body, up to MAX_BODY_BYTES (beyond it the response is dropped and this rejects). */
function readCapped(response: IncomingMessage, signal: AbortSignal | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        response.destroy();
        reject(new Error(`the response body is over ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    response.once("end", () => resolve(Buffer.concat(chunks, size)));
    // An abort (the timeout) while the body arrives destroys the response with an AbortError.
    response.on("error", (error) => reject(signal?.aborted ? signal.reason : error));
    response.once("close", () => {
      if (!response.complete)
        reject(signal?.aborted ? signal.reason : new Error("connection closed"));
    });
  });
}

/** node's raw header list as name/value pairs for the Response. */
function headerPairs(raw: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!]);
  return pairs;
}
