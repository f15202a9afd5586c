/**
 * `mcpwire auth login <url>`: authorizes the user at the server's authorization server and keeps
 * the tokens in the token store, where every verb then finds them. The flow is started by the
 * server's own 401 (so discovery, registration and scopes are exactly what any request would
 * get), the user authorizes in a browser (loopback redirect), by pasting the redirect URL
 * (--paste) or with a device code (--device); then one MCP handshake with the new token proves
 * it works.
 */
import { createInterface } from "node:readline";
import type { DeviceCodePrompt } from "../../auth/device-grant.js";
import type { OAuthClientOptions } from "../../auth/oauth-options.js";
import type { StoredTokens, TokenStore } from "../../auth/token-store.js";
import { isPlainHttpUrl, printableLine } from "../../text/printable.js";
import type { HttpAuthProvider } from "../../transports/http/client/auth.js";
import { networkFailure, systemErrorCode } from "../connect/connect-diagnosis.js";
import { clientOptions } from "../connect/http-auth.js";
import { logLine } from "../connect/session.js";
import { exitCodeFor, onStopSignals, type StopSignal } from "../connect/stop-signals.js";
import { type ConnectionSettings, openClient, type Target } from "../connect/target.js";
import type { ParsedArgs } from "../core/args.js";
import { CliError, UsageError } from "../core/errors.js";
import { writeErr, writeOut } from "../core/terminal.js";

/** Long enough to find the browser tab, sign in and approve. */
const LOGIN_TIMEOUT_MS = 300_000;

export async function runLogin(
  target: Target & { kind: "http" },
  settings: ConnectionSettings,
  options: ParsedArgs["options"],
): Promise<number> {
  const { auth } = settings;
  if (auth.bearer !== undefined || auth.grant !== undefined) {
    throw new UsageError(
      "auth login is for a person's authorization: a bearer token or --grant needs no login",
    );
  }
  if (options.paste === true && options.device === true) {
    throw new UsageError("--paste and --device exclude each other");
  }
  const library = await import("../../auth/index.js");
  const store = new library.FileTokenStore();
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const stopListening = onStopSignals((signal) => {
    stoppedBy ??= signal;
    controller.abort();
  });
  const browser = options["no-browser"] !== true;
  const show = (url: string) =>
    writeErr(`Open this URL in a browser to authorize mcpwire:\n\n  ${printableLine(url)}\n`);
  let loopback: { close(): Promise<void> } | undefined;
  try {
    let flow: Partial<OAuthClientOptions>;
    if (options.device === true) {
      flow = {
        grant: "device_code",
        device: {
          show: (prompt: DeviceCodePrompt) => {
            const complete = prompt.verificationUriComplete;
            writeErr(
              `To authorize mcpwire, visit ${printableLine(prompt.verificationUri)} and enter the code ${printableLine(prompt.userCode)}` +
                (complete ? `\n(or open ${printableLine(complete)})` : ""),
            );
            // The server's URL opens only when it is a plain http(s) one (no file:, no tricks).
            if (browser && complete && isPlainHttpUrl(complete)) library.openBrowser(complete);
          },
          signal: controller.signal,
        },
      };
    } else if (options.paste === true) {
      flow = {
        redirect: library.pasteRedirect({
          show: (url) => {
            show(url);
            writeErr(
              "After approving, the browser goes to an address that does not load: paste that whole address here:",
            );
          },
          readLine: () => readLine(controller.signal),
          openBrowser: browser,
        }),
      };
    } else {
      const redirect = await library.loopbackRedirect({
        show,
        openBrowser: browser,
        timeoutMs: LOGIN_TIMEOUT_MS,
        signal: controller.signal,
      });
      loopback = redirect;
      flow = { redirect };
    }
    const client = new library.OAuthClient({
      ...clientOptions(auth, store),
      ...flow,
      // A registration the authorization server forgot is made again, not shown to the person
      // as an error page that never comes back.
      checkStoredRegistration: true,
      store: freshLogin(store),
    });
    const url = target.url;
    const challenged = await startLogin(client, url, settings.headers, controller.signal);
    if (!challenged) {
      writeErr(`${url.href} did not ask for authorization: nothing to log in to`);
      return 1;
    }
    // A pre-registered client is kept with the tokens, so that refreshing and revoking need no
    // flags (a registration or a metadata document URL the OAuth client stored already).
    const tokens = (await store.getTokens(url.href)) as StoredTokens;
    if (auth.clientId !== undefined) {
      await store.setClient(tokens.issuer, {
        clientId: auth.clientId,
        ...(auth.clientSecret === undefined ? {} : { clientSecret: auth.clientSecret }),
        source: "pre-registered",
      });
    }
    const mcp = await openClient(target, settings, {
      log: logLine,
      auth: client,
      signal: controller.signal,
    });
    const name = mcp.serverInfo?.name;
    await mcp.close();
    writeOut(
      `logged in to ${url.href}${name ? ` (${printableLine(name)})` : ""} at ${printableLine(tokens.issuer)}; ` +
        `tokens kept in ${store.file}`,
    );
    return 0;
  } catch (error) {
    if (stoppedBy !== undefined) throw new CliError("login interrupted", exitCodeFor(stoppedBy));
    throw error;
  } finally {
    stopListening();
    await loopback?.close();
  }
}

/**
 * Sends one unauthenticated MCP POST and hands its 401 to the OAuth client, which authorizes
 * and stores the tokens. False when the server did not ask for authorization.
 */
async function startLogin(
  client: HttpAuthProvider,
  url: URL,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<boolean> {
  const request = { method: "POST", url, endpoint: url };
  const sent = await client.headers(request);
  const answer = await fetch(url, {
    method: "POST",
    headers: {
      ...headers,
      ...sent,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: "mcpwire-login", method: "ping" }),
    signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)]),
  }).catch((error: unknown) => {
    if (signal.aborted) throw error;
    const network = networkFailure(systemErrorCode(error), url.href);
    const cause = (error as Error).cause;
    throw new CliError(
      network ??
        `cannot reach ${url.href}: ${cause instanceof Error ? cause.message : (error as Error).message}`,
    );
  });
  await answer.body?.cancel().catch(() => {});
  client.onAnswer?.({ request, status: answer.status, header: (n) => answer.headers.get(n) });
  if (answer.status !== 401) return false;
  await client.onChallenge({ request, status: 401, headers: answer.headers, sent, retried: false });
  return true;
}

/** The store as login sees it: no tokens yet (a login starts afresh), writes go through. */
function freshLogin(store: TokenStore): TokenStore {
  return {
    getTokens: async () => undefined,
    setTokens: (resource, tokens) => store.setTokens(resource, tokens),
    deleteTokens: (resource) => store.deleteTokens(resource),
    getClient: (issuer) => store.getClient(issuer),
    setClient: (issuer, client) => store.setClient(issuer, client),
    deleteClient: (issuer) => store.deleteClient(issuer),
  };
}

/** One line from stdin (the pasted redirect URL); undefined at its end or on Ctrl-C. */
function readLine(signal: AbortSignal): Promise<string | undefined> {
  const lines = createInterface({ input: process.stdin, terminal: false });
  return new Promise<string | undefined>((resolve) => {
    let settled = false;
    const done = (line: string | undefined) => {
      if (settled) return;
      // Settled first: closing emits "close", which must not turn the line into nothing.
      settled = true;
      resolve(line);
      signal.removeEventListener("abort", abort);
      lines.close();
      process.stdin.pause();
    };
    const abort = () => done(undefined);
    signal.addEventListener("abort", abort, { once: true });
    lines.once("line", (line) => done(line));
    lines.once("close", () => done(undefined));
  });
}
