/**
 * The web build's GET for a protected resource's authorization-server documents (metadata,
 * JWKS): the runtime's fetch, under the rules of node-get.ts: GET only, https (plain http to a
 * loopback address only), no redirects followed, a body over MAX_BODY_BYTES refused.
 */
import { readUpTo } from "../../platform/read-capped.js";
import { isLoopbackUrl } from "../../transports/http/client/auth.js";
import type { nodeGet as nodeNodeGet } from "./node-get.js";

/** Metadata and key sets are small; anything bigger is not buffered. */
export const MAX_BODY_BYTES = 1024 * 1024;

// Named as in the Node build, which its importers use.
export const nodeGet: typeof nodeNodeGet = async (input, init) => {
  if (typeof input !== "string" && !(input instanceof URL)) {
    throw new TypeError("nodeGet: pass the URL (a string or URL), not a Request");
  }
  const url = new URL(input);
  const method = init?.method ?? "GET";
  if (method !== "GET") throw new TypeError(`nodeGet: GET only, not ${method}`);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackUrl(url))) {
    throw new TypeError(
      `nodeGet: ${url.origin} is not https (plain http is allowed for loopback addresses only)`,
    );
  }
  const response = await globalThis.fetch(url, { ...init, method, redirect: "manual" });
  if (!response.body) return response;
  const body = await readUpTo(response.body, MAX_BODY_BYTES);
  if (body === undefined) throw new Error(`the response body is over ${MAX_BODY_BYTES} bytes`);
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
};
