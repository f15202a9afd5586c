/**
 * The redirect handler for a browser that cannot reach us (another machine, a container): the
 * user opens the authorization URL, and the browser ends up at a loopback address nobody
 * listens on; the user copies that address and pastes it here (its state is checked like any
 * redirect's).
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
          "nothing was pasted (the address the browser ended up at)",
        );
      }
      return pastedParameters(line);
    },
  };
}

/**
 * The parameters in what was pasted: the redirect URL or its query, with the `state` in it (the
 * token request follows only when it is the login's own). A bare code is refused: with no state
 * nothing ties it to this login, and a server that sends `iss` needs the whole URL anyway.
 */
export function pastedParameters(text: string): URLSearchParams {
  let params: URLSearchParams;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    try {
      params = new URL(text).searchParams;
    } catch {
      throw new AuthorizationError("authorize", "the pasted text is not a URL");
    }
  } else {
    params = new URLSearchParams(text.replace(/^\?/, ""));
  }
  if (!params.has("state")) {
    throw new AuthorizationError(
      "authorize",
      "the pasted text has no state: paste the whole address the browser ended up at",
    );
  }
  return params;
}
