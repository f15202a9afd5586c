/**
 * The redirect handler for a browser that cannot reach us (another machine, a container): the
 * user opens the authorization URL, and the browser ends up at a loopback address nobody
 * listens on; the user copies that address (or just the code in it) and pastes it here.
 */
import { AuthorizationError } from "../transports/http/client/auth.js";
import { openBrowser } from "./open-browser.js";
import type { RedirectHandler } from "./redirect.js";

export interface PasteRedirectOptions {
  /** Shows the authorization URL and asks for the paste (the CLI prints to stderr). */
  show(authorizationUrl: string): void;
  /** The pasted line; undefined when there is none (end of input). */
  readLine(): Promise<string | undefined>;
  /** Default http://127.0.0.1:33418/callback (nothing listens there). */
  redirectUri?: string;
  /** Open a browser at the URL. Default false: the browser is usually elsewhere. */
  openBrowser?: boolean;
}

export function pasteRedirect(options: PasteRedirectOptions): RedirectHandler {
  return {
    redirectUri: options.redirectUri ?? "http://127.0.0.1:33418/callback",
    async authorize(authorizationUrl) {
      options.show(authorizationUrl.href);
      if (options.openBrowser === true) openBrowser(authorizationUrl.href);
      const line = (await options.readLine())?.trim();
      if (!line) {
        throw new AuthorizationError(
          "authorize",
          "nothing was pasted (the redirect URL or the code)",
        );
      }
      return pastedParameters(line, authorizationUrl.searchParams.get("state"));
    },
  };
}

/**
 * The parameters in what was pasted: the redirect URL, its query, or a bare code (then with the
 * state we sent; a server that sends `iss` needs the whole URL, since we cannot vouch for it).
 */
export function pastedParameters(text: string, state: string | null): URLSearchParams {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    try {
      return new URL(text).searchParams;
    } catch {
      throw new AuthorizationError("authorize", "the pasted text is not a URL");
    }
  }
  if (text.startsWith("?") || text.includes("="))
    return new URLSearchParams(text.replace(/^\?/, ""));
  const params = new URLSearchParams({ code: text });
  if (state !== null) params.set("state", state);
  return params;
}
