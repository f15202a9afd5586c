/**
 * What the endpoint's requests (modern POSTs; a legacy session's POSTs, GETs and DELETE) need from an HTTP client, so
 * that one code path (headers, status and era handling, JSON and SSE reply reading) runs over
 * either carrier: node:http with a keep-alive agent (node-carrier.ts, the default) or a `fetch`
 * (the user's own, for proxies, auth wrappers and tests). Only sending the bytes and reading
 * the answer differ.
 */
import type { RequestCancel } from "./request-cancel.js";
import { readSse, type SseHandlers } from "./sse-reader.js";

/** The answer to one POST: status line and headers at once, the body on demand. */
export interface PostAnswer {
  readonly status: number;
  /** 2xx. */
  readonly ok: boolean;
  /** The Content-Type header, "" when absent. */
  readonly contentType: string;
  /** One response header by its lower-case name (null when absent), without building all. */
  header(name: string): string | null;
  /** All response headers (built on demand: only failures need them). */
  headers(): Headers;
  /** The whole body as text. */
  text(): Promise<string>;
  /**
   * Feeds the body to `handlers` as server-sent events until it ends or `handlers.done()`
   * turns true; rejects when the body breaks (network error, abort). Leaving early stops the
   * body (a carrier may first let a stream that is about to end finish, to keep its connection).
   */
  sse(handlers: SseHandlers): Promise<void>;
  /** The body is not wanted: drop it (without waiting). */
  discard(): void;
}

export interface PostCarrier {
  /**
   * POSTs `body` with `headers` (the carrier may add to that object); resolves once the status
   * line and headers are in. Cancelling closes the request's connection (the server treats
   * that as cancellation) and rejects with the reason, including any body read in progress.
   */
  post(
    url: URL,
    headers: Record<string, string>,
    body: string,
    cancel?: RequestCancel,
  ): Promise<PostAnswer>;
  /**
   * A request without a body (a legacy session's GET stream or DELETE); cancelling closes it,
   * as for `post`.
   */
  request(
    method: "GET" | "DELETE",
    url: URL,
    headers: Record<string, string>,
    cancel?: RequestCancel,
  ): Promise<PostAnswer>;
  /** Frees what the carrier holds (pooled connections). Requests in flight are aborted. */
  close(): void;
}

/** A fetch `Response` seen as a PostAnswer. */
function answerOf(response: Response): PostAnswer {
  return {
    status: response.status,
    ok: response.ok,
    contentType: response.headers.get("content-type") ?? "",
    header: (name) => response.headers.get(name),
    headers: () => response.headers,
    text: () => response.text(),
    sse: async (handlers) => {
      if (response.body) await readSse(response.body, handlers);
    },
    discard: () => {
      response.body?.cancel().catch(() => {});
    },
  };
}

/** The carrier over a `fetch` function. */
export class FetchCarrier implements PostCarrier {
  private readonly fetch: typeof fetch;

  constructor(fetchFunction: typeof fetch) {
    this.fetch = fetchFunction;
  }

  async post(
    url: URL,
    headers: Record<string, string>,
    body: string,
    cancel?: RequestCancel,
  ): Promise<PostAnswer> {
    const signal = cancel?.signal;
    return answerOf(await this.fetch(url, { method: "POST", headers, body, signal }));
  }

  async request(
    method: "GET" | "DELETE",
    url: URL,
    headers: Record<string, string>,
    cancel?: RequestCancel,
  ): Promise<PostAnswer> {
    const signal = cancel?.signal;
    return answerOf(await this.fetch(url, { method, headers, signal }));
  }

  close(): void {
    // fetch owns its connections.
  }
}
