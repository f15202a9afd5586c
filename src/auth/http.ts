/**
 * HTTP for the OAuth client: one fetch (the user's or the global one), a timeout on every
 * request, https only (plain http for loopback addresses alone), bodies read up to a cap, and
 * oauth4webapi's per-call options built the same way for every endpoint.
 */
import * as oauth from "oauth4webapi";
import {
  AuthorizationError,
  type AuthorizationStep,
  assertSecureUrl,
  isLoopbackUrl,
} from "../transports/http/client/auth.js";

const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * Metadata, registration and token answers are small (a token response with an ID token is a
 * few kilobytes); a bigger body is refused, not buffered.
 */
const MAX_BODY_BYTES = 256 * 1024;
/** Statuses whose Response must not have a body (the Fetch standard's null body statuses). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export class AuthHttp {
  private readonly fetchFunction: typeof fetch;
  private readonly timeoutMs: number;

  constructor(fetchFunction?: typeof fetch, timeoutMs = DEFAULT_TIMEOUT_MS) {
    this.fetchFunction = fetchFunction ?? ((input, init) => globalThis.fetch(input, init));
    this.timeoutMs = timeoutMs;
  }

  /** A GET that does not follow redirects (a 3xx is just another non-200 answer). */
  async get(url: URL, step: AuthorizationStep, what: string): Promise<Response> {
    assertSecureUrl(url, step, what);
    return this.fetchFunction(url, {
      method: "GET",
      headers: { Accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(this.timeoutMs),
    });
  }

  /** The options oauth4webapi takes for a request to `url` (checked here first). */
  options(url: URL | string | undefined, step: AuthorizationStep, what: string) {
    const target = url === undefined ? undefined : new URL(url);
    if (target) assertSecureUrl(target, step, what);
    return {
      [oauth.customFetch]: this.cappedFetch(step, what),
      [oauth.allowInsecureRequests]: target !== undefined && isLoopbackUrl(target),
      signal: AbortSignal.timeout(this.timeoutMs),
    };
  }

  /**
   * The fetch oauth4webapi uses: every answer (token, registration, introspection, revocation,
   * device authorization, errors too) is read whole here, up to MAX_BODY_BYTES, and refused
   * beyond it, so no server can make the client buffer or store a body of any size.
   */
  private cappedFetch(step: AuthorizationStep, what: string): typeof fetch {
    return async (input, init) => {
      const response = await this.fetchFunction(input, init);
      const body = await bodyUpTo(response, MAX_BODY_BYTES);
      if (body === undefined) {
        throw new AuthorizationError(
          step,
          `the answer of ${what} is over ${MAX_BODY_BYTES / 1024} KiB`,
        );
      }
      return new Response(NULL_BODY.has(response.status) ? null : body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
  }

  /** The fetch itself, for the headless redirect handler. */
  get fetch(): typeof fetch {
    return this.fetchFunction;
  }
}

/** A JSON object body, or undefined when the body is not one (or is too big). */
export async function jsonObjectIn(
  response: Response,
): Promise<Record<string, unknown> | undefined> {
  const body = await bodyUpTo(response, MAX_BODY_BYTES);
  if (body === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(body));
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The whole body, or undefined (and the rest dropped unread) once it is over `max` bytes. */
async function bodyUpTo(response: Response, max: number): Promise<Uint8Array | undefined> {
  const length = Number(response.headers.get("content-length") ?? "0");
  if (length > max) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}
