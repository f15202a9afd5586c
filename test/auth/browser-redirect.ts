/**
 * A RedirectHandler that behaves like a browser with nobody at it: follows the authorization
 * server's redirects (login and consent pages that finish at once), keeping its cookies, until
 * one points back at the redirect URI. For authorization servers that, unlike the conformance
 * mocks, go through interaction pages first (oidc-provider).
 */
import type { RedirectHandler } from "../../src/auth/index.js";

const MAX_HOPS = 10;

export function browserRedirect(redirectUri = "http://127.0.0.1:33418/callback"): RedirectHandler {
  return {
    redirectUri,
    async authorize(authorizationUrl) {
      const cookies = new Map<string, string>();
      let next = authorizationUrl;
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
        if (`${target.origin}${target.pathname}` === redirectUri) return target.searchParams;
        next = target;
      }
      throw new Error("too many redirects");
    },
  };
}
