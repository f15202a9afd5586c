/**
 * How the user gets to the authorization endpoint and how the code comes back. Pluggable: a
 * loopback listener with a browser, manual paste or device code fit the same interface (later);
 * the headless one here serves tests and the conformance suite, whose mock authorization
 * servers redirect at once without asking anybody.
 */
import { AuthorizationError } from "../transports/http/client/auth.js";

export interface RedirectHandler {
  /** The redirect URI to register and send. */
  readonly redirectUri: string;
  /**
   * Sends the user to `authorizationUrl` and resolves with the parameters of the redirect back
   * to `redirectUri` (code, state, iss — or error).
   */
  authorize(authorizationUrl: URL, signal?: AbortSignal): Promise<URLSearchParams>;
}

export interface HeadlessRedirectOptions {
  redirectUri?: string;
  fetch?: typeof fetch;
}

/**
 * GETs the authorization URL without following the redirect and reads the parameters from the
 * `Location` header, which must point back at the redirect URI.
 */
export function headlessRedirect(options: HeadlessRedirectOptions = {}): RedirectHandler {
  const redirectUri = options.redirectUri ?? "http://127.0.0.1:33418/callback";
  const expected = new URL(redirectUri);
  return {
    redirectUri,
    async authorize(authorizationUrl, signal) {
      const send = options.fetch ?? globalThis.fetch;
      const response = await send(authorizationUrl, {
        method: "GET",
        redirect: "manual",
        signal: signal ?? AbortSignal.timeout(30_000),
      });
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get("location");
      if (response.status < 300 || response.status > 399 || !location) {
        throw new AuthorizationError(
          "authorize",
          `the authorization endpoint answered HTTP ${response.status} without a redirect`,
        );
      }
      let target: URL;
      try {
        target = new URL(location, authorizationUrl);
      } catch {
        throw new AuthorizationError("authorize", "the authorization redirect is not a URL");
      }
      if (target.origin !== expected.origin || target.pathname !== expected.pathname) {
        throw new AuthorizationError(
          "authorize",
          "the authorization server redirected somewhere other than our redirect URI",
        );
      }
      return target.searchParams;
    },
  };
}
