/**
 * A browser with nobody at it: follows the authorization server's redirects (login and consent
 * pages that finish at once), keeping its cookies, until one points back at the redirect URI.
 * For authorization servers that, unlike the conformance mocks, go through interaction pages
 * first (oidc-provider). browserRedirect is the RedirectHandler of our OAuth client;
 * followToRedirect serves other clients' providers and headless-browser.ts (mcp-remote).
 */
import type { RedirectHandler } from "../../src/auth/index.js";

const MAX_HOPS = 10;

/** The URL the authorization server finally sends the browser to, on `redirectUri`. */
export async function followToRedirect(
  authorizationUrl: string | URL,
  redirectUri: string,
): Promise<URL> {
  const cookies = new Map<string, string>();
  let next = new URL(authorizationUrl);
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(next, {
      redirect: "manual",
      headers: cookie ? { Cookie: cookie } : {},
    });
    await response.body?.cancel();
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
    }
    const location = response.headers.get("location");
    if (location === null) throw new Error(`HTTP ${response.status} without a redirect`);
    const target = new URL(location, next);
    if (`${target.origin}${target.pathname}` === redirectUri) return target;
    next = target;
  }
  throw new Error("too many redirects");
}

export function browserRedirect(redirectUri = "http://127.0.0.1:33418/callback"): RedirectHandler {
  return {
    redirectUri,
    async authorize(authorizationUrl) {
      return (await followToRedirect(authorizationUrl, redirectUri)).searchParams;
    },
  };
}
