/**
 * Host and Origin checks against DNS rebinding, and CORS for browser clients. Fail closed:
 * without configuration only loopback names pass, and an empty allowlist lets nothing through.
 */
import { HEADER, type HeaderSource, PARAM_HEADER_PREFIX } from "../../protocol/http-headers.js";

export interface SecurityOptions {
  /**
   * Accepted `Host` values: a bare name ("example.com", any port) or "name:port". Default:
   * localhost, 127.0.0.1 and [::1] on any port. "any" turns the check off (a public server
   * behind a proxy that checks it).
   */
  allowedHosts?: readonly string[] | "any";
  /**
   * Accepted `Origin` values (e.g. "https://app.example.com"). Default: http(s) origins on
   * localhost, 127.0.0.1 and [::1]. "same-origin": only this server's own origin, the one the
   * request's Host names (a page on another local port is another origin). Requests without
   * Origin (non-browser clients) always pass.
   */
  allowedOrigins?: readonly string[] | "any" | "same-origin";
}

export interface CorsOptions {
  /** How long browsers may cache a preflight answer (s). Default 600. */
  maxAgeSeconds?: number;
  /** Send `Access-Control-Allow-Credentials: true` (cookies, HTTP auth). Default false. */
  allowCredentials?: boolean;
}

const LOOPBACK_HOSTNAMES: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

export function isLoopbackHostname(hostname: string): boolean {
  return LOOPBACK_HOSTNAMES.includes(hostname.toLowerCase());
}

function parseHost(host: string): { hostname: string; host: string } | undefined {
  try {
    const url = new URL(`http://${host}`);
    // Anything beyond host[:port] (userinfo, a path) means the value was not a plain Host.
    if (url.username || url.password || url.pathname !== "/" || url.search || url.hash) {
      return undefined;
    }
    return { hostname: url.hostname, host: url.host };
  } catch {
    return undefined;
  }
}

/**
 * The last Host the default (loopback) rule accepted. A client sends the same Host on every
 * request, and parsing it (a URL each time) was ~450 bytes of garbage per request. Only the
 * default rule is remembered: its answer depends on nothing but the value.
 */
let acceptedLoopbackHost: string | undefined;

function hostAllowed(host: string, allowed: SecurityOptions["allowedHosts"]): boolean {
  if (allowed === "any") return true;
  if (allowed === undefined && host === acceptedLoopbackHost) return true;
  const parsed = parseHost(host);
  if (!parsed) return false;
  if (allowed === undefined) {
    if (!isLoopbackHostname(parsed.hostname)) return false;
    acceptedLoopbackHost = host;
    return true;
  }
  return allowed.some((entry) => {
    const candidate = parseHost(entry);
    if (!candidate) return false;
    const withPort = candidate.host !== candidate.hostname;
    return withPort ? candidate.host === parsed.host : candidate.hostname === parsed.hostname;
  });
}

/** `host` is the request's Host header, which "same-origin" compares with. */
function originAllowed(
  origin: string,
  allowed: SecurityOptions["allowedOrigins"],
  host?: string,
): boolean {
  if (allowed === "any") return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file:) and garbage
  }
  if (allowed === "same-origin") {
    // The scheme is not ours to know (TLS may end in front of us): http or https, same host:port.
    const own = host === undefined ? undefined : parseHost(host);
    return (url.protocol === "http:" || url.protocol === "https:") && own?.host === url.host;
  }
  if (allowed === undefined) {
    return (
      (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHostname(url.hostname)
    );
  }
  return allowed.some((entry) => {
    try {
      return new URL(entry).origin === url.origin;
    } catch {
      return false;
    }
  });
}

/** What the Host and Origin checks read: a web Request, or the node:http adapter's request view. */
export interface RequestView {
  readonly headers: HeaderSource;
  /** The absolute request URL; only read when the request has no Host header. */
  readonly url: string;
}

/** A web Request as the checks read it: its headers already in hand, its URL only if needed. */
export class WebRequestView implements RequestView {
  constructor(
    private readonly request: Request,
    readonly headers: HeaderSource,
  ) {}

  get url(): string {
    return this.request.url;
  }
}

/** Why a request is refused, or undefined when its Host and Origin pass. */
export function securityFailure(
  request: RequestView,
  options: SecurityOptions,
): string | undefined {
  const headers = request.headers;
  const host = headers.get("host") ?? new URL(request.url).host;
  if (!hostAllowed(host, options.allowedHosts)) return `Host '${host}' is not allowed`;
  const origin = headers.get("origin");
  if (origin !== null && !originAllowed(origin, options.allowedOrigins, host)) {
    return `Origin '${origin}' is not allowed`;
  }
  return undefined;
}

/** Request headers a browser client may send. */
const ALLOWED_REQUEST_HEADERS = [
  "Content-Type",
  "Accept",
  "Authorization",
  "DPoP", // RFC 9449 proofs, for protected endpoints that take DPoP-bound tokens
  HEADER.protocolVersion,
  HEADER.method,
  HEADER.name,
  HEADER.sessionId,
  HEADER.lastEventId,
];
const EXPOSED_RESPONSE_HEADERS = [
  HEADER.protocolVersion,
  HEADER.method,
  HEADER.name,
  HEADER.sessionId,
  HEADER.lastEventId,
  "WWW-Authenticate",
];

/** Header name/value pairs, in the order they were added. */
export type HeaderPairs = readonly (readonly [string, string])[];

export const NO_HEADERS: HeaderPairs = [];

const EXPOSED = EXPOSED_RESPONSE_HEADERS.join(", ");

/** CORS headers for an actual response to an (already validated) Origin, as pairs. */
export function corsHeaderPairs(origin: string | null, options: CorsOptions): HeaderPairs {
  if (origin === null) return NO_HEADERS;
  const pairs: [string, string][] = [
    ["Access-Control-Allow-Origin", origin],
    ["Vary", "Origin"],
    ["Access-Control-Expose-Headers", EXPOSED],
  ];
  if (options.allowCredentials) pairs.push(["Access-Control-Allow-Credentials", "true"]);
  return pairs;
}

/** Pairs as a Headers object, for the replies built as web Responses rather than PlainReplies. */
export function headersOf(pairs: HeaderPairs): Headers {
  return new Headers(pairs as [string, string][]);
}

/** CORS headers for an actual response to an (already validated) Origin. */
function corsHeaders(origin: string | null, options: CorsOptions): Headers {
  return headersOf(corsHeaderPairs(origin, options));
}

/**
 * The answer to a preflight. `Mcp-Param-*` names depend on the tool, so requested names with
 * that prefix are echoed back; other requested headers must be on the fixed list.
 */
export function preflightResponse(
  request: Request,
  options: CorsOptions,
  methods: readonly string[] = ["POST"],
): Response {
  const headers = corsHeaders(request.headers.get("origin"), options);
  const fixed = new Set(ALLOWED_REQUEST_HEADERS.map((name) => name.toLowerCase()));
  const requested = (request.headers.get("access-control-request-headers") ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const params = requested.filter((name) =>
    name.toLowerCase().startsWith(PARAM_HEADER_PREFIX.toLowerCase()),
  );
  const unknown = requested.filter(
    (name) => !fixed.has(name.toLowerCase()) && !params.includes(name),
  );
  if (unknown.length === 0) {
    headers.set("Access-Control-Allow-Methods", [...methods, "OPTIONS"].join(", "));
    headers.set("Access-Control-Allow-Headers", [...ALLOWED_REQUEST_HEADERS, ...params].join(", "));
    headers.set("Access-Control-Max-Age", String(options.maxAgeSeconds ?? 600));
  }
  return new Response(null, { status: 204, headers });
}
