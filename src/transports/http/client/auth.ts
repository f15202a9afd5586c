/**
 * The authorization seam of the HTTP client transport. Every request the transport makes (modern
 * POST, legacy POST/GET/DELETE, the 2024-11-05 HTTP+SSE GET and POSTs) asks the provider for its
 * headers, and a 401/403 answer goes to the provider's `onChallenge`; when that says "retry", the
 * request is sent once more with fresh headers: once for new credentials, and at most once more
 * when the answer to that retry is a 401 handing out a DPoP nonce (RFC 9449 §9: a server may
 * ask for one only once the new token came). The provider is told when the answer is to a retry
 * (`retried`) and must not renew its credentials then. Every answer, a success too, is shown to
 * the provider's optional `onAnswer` first: a server may hand out a fresh DPoP nonce on any
 * answer (RFC 9449 §8, §9), and the next proofs must carry it.
 *
 * Only interfaces and the static bearer provider live here, so the core carries no OAuth code:
 * the OAuth client (discovery, code flow, refresh, step-up) is in `mcpwire/auth`.
 */
import { LocalError } from "../../../jsonrpc/errors.js";

/** The request about to be sent (or just answered). */
export interface HttpAuthRequest {
  readonly method: string;
  /** Where this request goes (the HTTP+SSE message endpoint differs from `endpoint`). */
  readonly url: URL;
  /** The MCP endpoint the transport was made for: the protected resource. */
  readonly endpoint: URL;
}

/** A 401 or 403 answer to a request that carried `sent` from the provider. */
export interface HttpAuthChallenge {
  readonly request: HttpAuthRequest;
  readonly status: number;
  readonly headers: Headers;
  /** The headers the provider gave for the answered request. */
  readonly sent: Readonly<Record<string, string>>;
  /** The answered request was already a retry: only a DPoP nonce may justify another one. */
  readonly retried: boolean;
}

/** Any answer to a request that carried the provider's headers, a 401/403 included. */
export interface HttpAuthAnswer {
  readonly request: HttpAuthRequest;
  readonly status: number;
  /** One response header by its lower-case name; null when absent. */
  header(name: string): string | null;
}

/** What the seam reads from an answer, whichever carrier brought it. */
interface AnswerView {
  status: number;
  header: (name: string) => string | null;
  headers: () => Headers;
  discard: () => void;
}

/** Sends with the provider's headers; a 401/403 goes to `onChallenge` (see above). */
export async function sendAuthorized<Answer>(
  auth: HttpAuthProvider,
  request: HttpAuthRequest,
  send: (headers: Record<string, string>) => Promise<Answer>,
  view: (answer: Answer) => AnswerView,
): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const sent = await auth.headers(request);
    const answer = await send(sent);
    const { status, header, headers, discard } = view(answer);
    auth.onAnswer?.({ request, status, header });
    if (status !== 401 && status !== 403) return answer;
    const answered = headers();
    // The second retry is for a DPoP nonce only (a 401 that hands one out).
    if (attempt === 1 && (status !== 401 || !answered.has("dpop-nonce"))) return answer;
    if (attempt === 2) return answer;
    const verdict = await auth.onChallenge({
      request,
      status,
      headers: answered,
      sent,
      retried: attempt > 0,
    });
    if (verdict !== "retry") return answer;
    discard();
  }
}

export interface HttpAuthProvider {
  /** Headers for one request (`Authorization`, later `DPoP`); `{}` when there is no token yet. */
  headers(request: HttpAuthRequest): Promise<Record<string, string>>;
  /**
   * A 401/403 came back. "retry": credentials changed, send the request again (once).
   * "fail": give the answer to the caller as it is. May reject with an AuthorizationError.
   */
  onChallenge(challenge: HttpAuthChallenge): Promise<"retry" | "fail">;
  /**
   * Optional: sees every answer (before `onChallenge` sees a 401/403), for what a server may
   * send on any of them, such as a fresh DPoP nonce. Must not throw.
   */
  onAnswer?(answer: HttpAuthAnswer): void;
}

/** The step of an authorization that failed. */
export type AuthorizationStep =
  | "discovery"
  | "registration"
  | "authorize"
  | "token"
  | "refresh"
  | "step-up"
  | "revocation"
  | "request";

/**
 * Authorization failed on this side: the step and why, in one line. Never holds a secret (tokens,
 * codes, client secrets, verifiers): messages are built from our own words and the server's
 * error codes only.
 */
export class AuthorizationError extends LocalError {
  override name = "AuthorizationError";
  readonly step: AuthorizationStep;
  readonly reason: string;
  /** The server's OAuth error code (`invalid_client`, `invalid_grant`, …), when it sent one. */
  readonly serverError: string | undefined;

  constructor(step: AuthorizationStep, reason: string, serverError?: string) {
    super("auth", `authorization failed (${step}): ${reason}`);
    this.step = step;
    this.reason = reason;
    this.serverError = serverError;
  }
}

/**
 * Whether plain `http:` may carry credentials to this URL: only to the loopback interface
 * (127.0.0.0/8, ::1, and the name localhost), where nobody else can listen in.
 */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname;
  return (
    host === "localhost" ||
    host === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    host.endsWith(".localhost")
  );
}

/** Throws unless `url` is https, or http to a loopback address. */
export function assertSecureUrl(url: URL, step: AuthorizationStep, what: string): void {
  if (url.protocol === "https:") return;
  if (url.protocol === "http:" && isLoopbackUrl(url)) return;
  throw new AuthorizationError(
    step,
    `${what} ${url.origin} is not https (plain http is allowed for loopback addresses only)`,
  );
}

export interface BearerTokenOptions {
  /**
   * Send the token over plain http to a host that is not loopback. Off by default: anyone on the
   * path could read and replay it.
   */
  allowInsecureHttp?: boolean;
}

/**
 * A fixed bearer token (an API key) or a function returning the current one. A challenge never
 * retries: a static token cannot change by asking again.
 */
export function bearerToken(
  token: string | (() => string | Promise<string>),
  options: BearerTokenOptions = {},
): HttpAuthProvider {
  const fixed = typeof token === "string" ? { Authorization: `Bearer ${token}` } : undefined;
  const checked = new WeakSet<URL>();
  return {
    async headers(request) {
      if (!options.allowInsecureHttp && !checked.has(request.url)) {
        assertSecureUrl(request.url, "request", "the bearer token's server");
        checked.add(request.url);
      }
      if (fixed) return { ...fixed };
      return { Authorization: `Bearer ${await (token as () => string | Promise<string>)()}` };
    },
    async onChallenge() {
      return "fail";
    },
  };
}
