/**
 * The redirect handler for a person at a browser on this machine (RFC 8252 §7.3): a listener on
 * 127.0.0.1 at a port the system picks, whose `/callback` receives the authorization response.
 * It shows the authorization URL, opens a browser there where one exists, and answers the
 * browser with a small page that repeats nothing of the answer (its `iss` is not checked yet). A
 * callback whose `state` is not the one of the login in progress (another page probing the
 * port) is refused and the wait goes on; no answer in time fails.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { AuthorizationError } from "../transports/http/client/auth.js";
import { openBrowser } from "./open-browser.js";
import type { RedirectHandler } from "./redirect.js";

export interface LoopbackRedirectOptions {
  /** Shows the authorization URL to the user (the CLI prints it). */
  show(authorizationUrl: string): void;
  /** Open a browser at the URL. Default true. */
  openBrowser?: boolean;
  /** How long to wait for the browser to come back. Default 5 minutes. */
  timeoutMs?: number;
  /** Stops waiting (Ctrl-C). */
  signal?: AbortSignal;
}

export interface LoopbackRedirect extends RedirectHandler {
  /** Stops listening (done by itself after an answer, a timeout or an abort). */
  close(): Promise<void>;
}

const CALLBACK_PATH = "/callback";

export async function loopbackRedirect(
  options: LoopbackRedirectOptions,
): Promise<LoopbackRedirect> {
  let waiting: { state: string | null; resolve: (params: URLSearchParams) => void } | undefined;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET" || url.pathname !== CALLBACK_PATH) {
      return page(res, 404, "Not found", "This address only receives an authorization response.");
    }
    if (waiting === undefined || url.searchParams.get("state") !== waiting.state) {
      return page(
        res,
        400,
        "Unexpected response",
        "This authorization response does not belong to the login in progress.",
      );
    }
    // Nothing of the answer (an error, its description) is shown: whether it comes from the
    // authorization server at all is known only once its `iss` is checked, after this page.
    page(
      res,
      200,
      "Response received",
      "You can close this tab: the terminal says whether the authorization succeeded.",
    );
    const { resolve } = waiting;
    waiting = undefined;
    resolve(url.searchParams);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    redirectUri: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    close,
    async authorize(authorizationUrl, signal) {
      const timeoutMs = options.timeoutMs ?? 300_000;
      const stops = [options.signal, signal].filter((s): s is AbortSignal => s !== undefined);
      let timer: NodeJS.Timeout | undefined;
      let stop = () => {};
      try {
        return await new Promise<URLSearchParams>((resolve, reject) => {
          timer = setTimeout(
            () => reject(failure(`no answer from the browser within ${timeoutMs / 1000} s`)),
            timeoutMs,
          );
          stop = () => reject(failure("stopped while waiting for the browser"));
          for (const s of stops) s.addEventListener("abort", stop, { once: true });
          if (stops.some((s) => s.aborted)) stop();
          waiting = { state: authorizationUrl.searchParams.get("state"), resolve };
          options.show(authorizationUrl.href);
          if (options.openBrowser !== false) openBrowser(authorizationUrl.href);
        });
      } finally {
        // Whichever way it ended: no timer or listener outlives the wait.
        clearTimeout(timer);
        for (const s of stops) s.removeEventListener("abort", stop);
        waiting = undefined;
        await close();
      }
    },
  };
}

function failure(reason: string): AuthorizationError {
  return new AuthorizationError("authorize", reason);
}

/** A small page of our own words (escaped all the same). */
function page(res: ServerResponse, status: number, title: string, text: string): void {
  const body = `<!doctype html><html><head><meta charset="utf-8"><title>mcpwire: ${htmlText(title)}</title></head><body><h1>${htmlText(title)}</h1><p>${htmlText(text)}</p></body></html>`;
  res.writeHead(status, {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": "default-src 'none'",
    "Cache-Control": "no-store",
    Connection: "close",
  });
  res.end(body);
}

function htmlText(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
