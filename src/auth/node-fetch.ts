/**
 * The fetch the OAuth client uses by default: node:http / node:https with the resolver it is
 * given, so the address each connection goes to is checked where the name is resolved (the
 * global fetch offers no such hook without undici's own Agent). What the OAuth client sends is
 * small (a GET, or a POST of a form or a JSON document); redirects are never followed (a 3xx is
 * handed back as it is), the caller's signal aborts, and the body streams to the caller, which
 * caps what it reads.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { Readable } from "node:stream";

/** Statuses whose Response must not have a body (the Fetch standard's null body statuses). */
export const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export function nodeFetch(lookup: LookupFunction): typeof fetch {
  return async (input, init) => {
    if (input instanceof Request) {
      throw new TypeError("nodeFetch: pass the URL (a string or URL), not a Request");
    }
    const url = new URL(input);
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new TypeError(`nodeFetch: ${url.protocol} is not http(s)`);
    }
    const body = bodyBytes(init?.body);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    if (body !== undefined) headers["content-length"] = String(body.byteLength);
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, {
        method: init?.method ?? "GET",
        headers,
        signal,
        lookup,
        // A connection of its own each time: a few requests per authorization, nothing to pool.
        agent: false,
      });
      request.once("response", resolve);
      // `on`: an error later in the body is emitted here too, and must not go unhandled.
      request.on("error", (error) => reject(signal?.aborted ? signal.reason : error));
      request.end(body);
    });
    const status = response.statusCode ?? 0;
    if (NULL_BODY.has(status)) response.resume();
    return new Response(
      NULL_BODY.has(status) ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>),
      {
        status,
        statusText: response.statusMessage ?? "",
        headers: headerPairs(response.rawHeaders),
      },
    );
  };
}

/** What oauth4webapi sends: a form, a JSON string, bytes, or nothing. */
function bodyBytes(body: RequestInit["body"]): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string" || body instanceof URLSearchParams) {
    return Buffer.from(body.toString(), "utf8");
  }
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError("nodeFetch: the body must be a string, a form or bytes");
}

/** node's raw header list as name/value pairs for the Response. */
function headerPairs(raw: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i] as string, raw[i + 1] as string]);
  return pairs;
}
