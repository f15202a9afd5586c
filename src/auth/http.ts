/**
 * HTTP for the OAuth client: one fetch (the user's, or node:http with the resolver of the
 * address scope), a timeout on every request, https only (plain http for loopback addresses
 * alone), bodies read up to a cap, and oauth4webapi's per-call options built the same way for
 * every endpoint.
 *
 * With an address scope (the MCP server the client serves), every request is checked before
 * it goes (address-scope.ts): a loopback or private target is refused unless the MCP server is
 * itself loopback or private or the user named that origin. Names are checked as the connection
 * resolves them; with the user's own fetch they are resolved and checked just before instead.
 */
import type { LookupFunction } from "node:net";
import * as oauth from "oauth4webapi";
import { readUpTo } from "../platform/read-capped.js";
import {
  AuthorizationError,
  type AuthorizationStep,
  assertSecureUrl,
  isLoopbackUrl,
} from "../transports/http/client/auth.js";
import {
  bareHost,
  defaultLookup,
  isLocalEndpoint,
  isPublicAddress,
  literalScope,
  NonPublicAddressError,
  publicOnlyLookup,
  resolveAll,
} from "./address-scope.js";
import { NULL_BODY, nodeFetch } from "./node-fetch.js";

const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * Metadata, registration and token answers are small (a token response with an ID token is a
 * few kilobytes); a bigger body is refused, not buffered.
 */
const MAX_BODY_BYTES = 256 * 1024;

/** Whom the requests are made for, and so which addresses they may reach. */
interface AddressScope {
  /** The MCP server: loopback or private targets only when it is loopback or private itself. */
  readonly endpoint: URL;
  /** How names are resolved. Default dns.lookup. */
  readonly lookup?: LookupFunction;
  /** Origins the user configured (a pre-registered client's issuer, an identity provider). */
  readonly trustedOrigins?: readonly string[];
}

export class AuthHttp {
  private readonly fetchFunction: typeof fetch;
  private readonly defaultFetch: boolean;
  private readonly timeoutMs: number;
  private readonly scope: AddressScope | undefined;
  private readonly lookup: LookupFunction;
  private localEndpoint: Promise<boolean> | undefined;

  constructor(fetchFunction?: typeof fetch, timeoutMs = DEFAULT_TIMEOUT_MS, scope?: AddressScope) {
    this.scope = scope;
    this.lookup = scope?.lookup ?? defaultLookup;
    this.defaultFetch = fetchFunction === undefined;
    this.fetchFunction =
      fetchFunction ??
      (scope === undefined
        ? (input, init) => globalThis.fetch(input, init)
        : this.scopedFetch.bind(this));
    this.timeoutMs = timeoutMs;
  }

  /** A GET that does not follow redirects (a 3xx is just another non-200 answer). */
  async get(url: URL, step: AuthorizationStep, what: string): Promise<Response> {
    assertSecureUrl(url, step, what);
    return this.checked(step, what)(url, {
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
      const response = await this.checked(step, what)(input, init);
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

  /**
   * options(), for a request that carries client credentials or an assertion: `url` must be on
   * the origin of `issuer`, the authorization server they belong to.
   */
  credentialOptions(
    url: URL | string | undefined,
    issuer: string,
    step: AuthorizationStep,
    what: string,
  ) {
    assertIssuerOrigin(url, issuer, step, what);
    return this.options(url, step, what);
  }

  /** The fetch itself, for the headless redirect handler. */
  get fetch(): typeof fetch {
    return this.fetchFunction;
  }

  /** The fetch with the address scope's check before each request, and its refusals explained. */
  private checked(step: AuthorizationStep, what: string): typeof fetch {
    return async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : input);
      await this.checkTarget(url, step, what);
      try {
        return await this.fetchFunction(input, init);
      } catch (error) {
        if (error instanceof NonPublicAddressError)
          throw this.refusal(url, step, what, error.address);
        throw error;
      }
    };
  }

  /** Whether requests to `url` must reach public addresses only. */
  private async publicOnly(url: URL): Promise<boolean> {
    const scope = this.scope;
    if (scope === undefined || scope.trustedOrigins?.includes(url.origin)) return false;
    this.localEndpoint ??= isLocalEndpoint(scope.endpoint, this.lookup);
    return !(await this.localEndpoint);
  }

  /** Refuses a literal non-public target (and, with the user's fetch, a name resolving to one). */
  private async checkTarget(url: URL, step: AuthorizationStep, what: string): Promise<void> {
    if (!(await this.publicOnly(url))) return;
    const host = bareHost(url);
    const literal = literalScope(host);
    if (literal === "not public") throw this.refusal(url, step, what, host);
    if (literal === undefined && !this.defaultFetch) {
      const refused = (await resolveAll(this.lookup, host)).find(
        (a) => !isPublicAddress(a.address),
      );
      if (refused !== undefined) throw this.refusal(url, step, what, refused.address);
    }
  }

  /** The default fetch: names resolved, and checked, as each connection is made. */
  private async scopedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const url = new URL(input instanceof Request ? input.url : input);
    const lookup = (await this.publicOnly(url)) ? publicOnlyLookup(this.lookup) : this.lookup;
    return nodeFetch(lookup)(input, init);
  }

  private refusal(url: URL, step: AuthorizationStep, what: string, address: string) {
    const endpoint = (this.scope as AddressScope).endpoint;
    return new AuthorizationError(
      step,
      `${what} ${url.origin} is ${address === bareHost(url) ? "" : `at ${address}, `}a loopback, private or reserved address, and the MCP server ${endpoint.origin} is not on one: refused`,
    );
  }
}

/**
 * The address scope of a client serving `endpoint`: the origins the user configured (a
 * pre-registered client's issuer, an identity provider) are trusted wherever they are.
 */
export function addressScope(
  endpoint: URL,
  options: {
    lookup?: LookupFunction;
    clientIssuer?: unknown;
    enterprise?: { idpIssuer: string };
  },
): AddressScope {
  const trusted = [options.clientIssuer, options.enterprise?.idpIssuer].flatMap((issuer) => {
    if (typeof issuer !== "string") return [];
    try {
      return [new URL(issuer).origin];
    } catch {
      return [];
    }
  });
  return {
    endpoint,
    ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
    trustedOrigins: trusted,
  };
}

/** Throws unless `url` is on the origin of `issuer` (credentials go nowhere else). */
function assertIssuerOrigin(
  url: URL | string | undefined,
  issuer: string,
  step: AuthorizationStep,
  what: string,
): void {
  if (url === undefined) return;
  const target = new URL(url);
  if (target.origin === new URL(issuer).origin) return;
  throw new AuthorizationError(
    step,
    `${what} ${target.origin} is not on the origin of the authorization server ${issuer}: client credentials are not sent there`,
  );
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
  return readUpTo(response.body, max);
}
