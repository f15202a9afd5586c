/**
 * HTTP for the OAuth client: one fetch (the user's or the global one), a timeout on every
 * request, https only (plain http for loopback addresses alone), bodies read up to a cap, and
 * oauth4webapi's per-call options built the same way for every endpoint.
 */
import * as oauth from "oauth4webapi";
import {
  type AuthorizationStep,
  assertSecureUrl,
  isLoopbackUrl,
} from "../transports/http/client/auth.js";

const DEFAULT_TIMEOUT_MS = 30_000;
/** Metadata and registration documents are small; a bigger body is refused, not buffered. */
const MAX_BODY_BYTES = 256 * 1024;

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
      [oauth.customFetch]: this.fetchFunction,
      [oauth.allowInsecureRequests]: target !== undefined && isLoopbackUrl(target),
      signal: AbortSignal.timeout(this.timeoutMs),
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
  const length = Number(response.headers.get("content-length") ?? "0");
  if (length > MAX_BODY_BYTES) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  const reader = response.body?.getReader();
  if (!reader) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
