/**
 * `mcpwire auth login|status|logout`: the tokens every HTTP verb uses, kept in the token store
 * ($MCPWIRE_HOME/tokens.json, else $XDG_CONFIG_HOME/mcpwire, else ~/.config/mcpwire; 0600).
 * `status` shows which servers have tokens, from which authorization server, the scopes asked
 * for and when they expire; never a token itself.
 */
import type { ClientIdentityOptions } from "../../auth/client-identity.js";
import { FileTokenStore, TokenStoreError } from "../../auth/file-token-store.js";
import type { StoredTokens } from "../../auth/token-store.js";
import { printableLine } from "../../text/printable.js";
import { authSettings, clientOptions } from "../connect/http-auth.js";
import { AUTH_USAGE } from "../connect/http-auth-options.js";
import { CONNECTION_OPTIONS, connectionSettings, parseTarget } from "../connect/target.js";
import { parseArgs } from "../core/args.js";
import { UsageError } from "../core/errors.js";
import { writeErr, writeJson, writeOut } from "../core/terminal.js";
import { runLogin } from "./auth-login.js";

/** Per request to an authorization server while logging out. */
const REVOKE_TIMEOUT_MS = 10_000;

const AUTH_VERB_USAGE = `Usage: mcpwire auth login <url> [--paste | --device] [--no-browser] [options]
       mcpwire auth status [url] [--json]
       mcpwire auth logout [url]

login authorizes mcpwire at the server's OAuth authorization server and keeps the tokens; every
verb (call, discover, shell, gateway --stdio, …) then uses them for that URL, refreshing them
as needed. By default a browser opens (the URL is printed too) and comes back to a listener on
127.0.0.1; --paste: open the URL anywhere and paste the address the browser ends up at;
--device: a code to enter on another device (RFC 8628, where the server offers it).
--no-browser prints the URL without opening one (a browser is opened with $BROWSER, open or
xdg-open when there is one). --client-id/--client-secret (or MCPWIRE_CLIENT_SECRET) use a
pre-registered client, --client-metadata-url a client ID metadata document; otherwise mcpwire
registers itself (dynamic client registration). The client is kept with the tokens: later
verbs and logout need none of these flags (a verb never registers one to refresh with). --scope "<scopes>" asks for more scopes.
status lists the servers with tokens (authorization server, scopes asked, expiry; never the
tokens) and the clients kept; logout has the authorization server revoke a server's tokens where
it offers that (RFC 7009; a failure is a warning) and forgets them and the client kept for its
authorization server (unless other tokens need it), or without a URL every token and client.
Tokens live in $MCPWIRE_HOME/tokens.json (else $XDG_CONFIG_HOME/mcpwire/, else
~/.config/mcpwire/), readable by you alone.
${AUTH_USAGE}
`;

export async function runAuth(argv: readonly string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action === "--help" || action === "-h") {
    writeOut(AUTH_VERB_USAGE);
    return 0;
  }
  if (action === undefined) throw new UsageError("auth needs an action: login, status or logout");
  const parsed = parseArgs(rest, {
    ...CONNECTION_OPTIONS,
    paste: "flag",
    device: "flag",
    "no-browser": "flag",
  });
  const { options, positionals } = parsed;
  if (options.help === true) {
    writeOut(AUTH_VERB_USAGE);
    return 0;
  }
  if (parsed.command !== undefined || positionals.length > 1) {
    throw new UsageError(`usage: mcpwire auth ${action} ${action === "login" ? "<url>" : "[url]"}`);
  }
  const url = positionals[0] === undefined ? undefined : httpUrl(positionals[0]);
  switch (action) {
    case "login": {
      if (url === undefined) throw new UsageError("auth login needs the server's URL");
      return runLogin({ kind: "http", url }, connectionSettings(options), options);
    }
    case "status":
      return status(url, options.json === true);
    case "logout":
      return logout(url, clientOptions(authSettings(options), new FileTokenStore()));
    default:
      throw new UsageError(
        `unknown auth action ${JSON.stringify(action)}: login, status or logout`,
      );
  }
}

function httpUrl(text: string): URL {
  const target = parseTarget(text, undefined);
  if (target.kind !== "http") throw new UsageError("auth works with http(s) URLs");
  return target.url;
}

async function status(url: URL | undefined, json: boolean): Promise<number> {
  const store = new FileTokenStore();
  const all = await store.resources();
  const shown = url === undefined ? all : all.filter(([resource]) => resource === url.href);
  if (json) {
    writeJson(shown.map(([resource, tokens]) => describe(resource, tokens)));
  } else if (shown.length === 0) {
    writeOut(
      url === undefined
        ? `no stored tokens (${store.file})`
        : `no tokens for ${url.href}: run mcpwire auth login ${url.href}`,
    );
  } else {
    writeOut(shown.map(([resource, tokens]) => statusLines(resource, tokens)).join("\n"));
  }
  if (!json) {
    const issuers = new Set(shown.map(([, tokens]) => tokens.issuer));
    const lines = await clientLines(store, url === undefined ? undefined : issuers);
    if (lines.length > 0) writeOut(lines.join("\n"));
  }
  return url !== undefined && shown.length === 0 ? 1 : 0;
}

/** The clients kept per authorization server (all, or those of `issuers`); never a secret. */
async function clientLines(
  store: FileTokenStore,
  issuers: ReadonlySet<string> | undefined,
): Promise<string[]> {
  const { clients, clientIssuers } = await store.clients();
  const wanted = (issuer: string) => issuers === undefined || issuers.has(issuer);
  const kinds = {
    registered: "registered by mcpwire",
    "pre-registered": "pre-registered",
    "metadata-document": "client ID metadata document",
  };
  const lines = [
    ...clients
      .filter(([issuer]) => wanted(issuer))
      .map(
        ([issuer, client]) =>
          `  ${printableLine(issuer)}: ${printableLine(client.clientId)} (${kinds[client.source ?? "registered"]})`,
      ),
    ...clientIssuers
      .filter(([, issuer]) => wanted(issuer))
      .map(
        ([clientId, issuer]) =>
          `  --client-id ${printableLine(clientId)} belongs to ${printableLine(issuer)}`,
      ),
  ];
  return lines.length === 0 ? [] : ["clients:", ...lines];
}

/** What status tells about one server's tokens: everything but the tokens. */
function describe(resource: string, tokens: StoredTokens) {
  return {
    resource,
    issuer: tokens.issuer,
    scopes: tokens.requestedScopes ?? [],
    tokenType: tokens.tokenType,
    expiresAt: tokens.expiresAt === undefined ? null : new Date(tokens.expiresAt).toISOString(),
    refreshable: tokens.refreshToken !== undefined,
  };
}

function statusLines(resource: string, tokens: StoredTokens): string {
  const scopes = tokens.requestedScopes ?? [];
  return [
    printableLine(resource),
    `  authorization server: ${printableLine(tokens.issuer)}`,
    `  scopes asked for: ${scopes.length > 0 ? printableLine(scopes.join(" ")) : "(none)"}`,
    `  expires: ${expiry(tokens)}`,
  ].join("\n");
}

function expiry(tokens: StoredTokens): string {
  const refresh = tokens.refreshToken !== undefined;
  if (tokens.expiresAt === undefined) return "not said by the server";
  const minutes = Math.round((tokens.expiresAt - Date.now()) / 60_000);
  const at = new Date(tokens.expiresAt).toISOString().replace(/\.\d+Z$/, "Z");
  if (minutes >= 0) return `in ${minutes} min (${at})${refresh ? ", refreshable" : ""}`;
  return `${-minutes} min ago (${at})${refresh ? "; refreshed on next use" : "; log in again"}`;
}

async function logout(url: URL | undefined, identity: ClientIdentityOptions): Promise<number> {
  const store = new FileTokenStore();
  if (url === undefined) {
    // Revoked while the registrations they need are still there; an unreadable file is just removed.
    const all = await store.resources().catch((error: unknown) => {
      if (error instanceof TokenStoreError) return [];
      throw error;
    });
    for (const [resource, tokens] of all) await revoke(store, resource, tokens, identity);
    await store.clear();
    writeOut(`forgot every token and registration (${store.file} removed)`);
    return 0;
  }
  const tokens = await store.getTokens(url.href);
  if (tokens === undefined) {
    writeOut(`no tokens for ${url.href}`);
    return 0;
  }
  const revoked = await revoke(store, url.href, tokens, identity);
  await store.deleteTokens(url.href);
  // The client there goes too, unless another server's tokens still need it to refresh.
  const others = (await store.resources()).some(([, kept]) => kept.issuer === tokens.issuer);
  const forget = !others && (await store.getClient(tokens.issuer)) !== undefined;
  if (!others) await store.forgetIssuer(tokens.issuer);
  writeOut(
    `logged out of ${url.href}${revoked ? ` (tokens revoked at ${printableLine(tokens.issuer)})` : ""}` +
      (forget ? `; forgot the client kept for ${printableLine(tokens.issuer)}` : ""),
  );
  return 0;
}

/**
 * Has the authorization server revoke the tokens, where it offers that (RFC 7009). True when it
 * revoked them all; a failure is one line on stderr, without the server's own words (which
 * could repeat a token).
 */
async function revoke(
  store: FileTokenStore,
  resource: string,
  tokens: StoredTokens,
  identity: ClientIdentityOptions,
): Promise<boolean> {
  const { revokeTokens } = await import("../../auth/revocation.js");
  const outcome = await revokeTokens(tokens, store, {
    ...identity,
    resource,
    timeoutMs: REVOKE_TIMEOUT_MS,
  });
  if (outcome.failure !== undefined) {
    const what = outcome.failed.map((kind) => kind.replace("_", " ")).join(" and ");
    const stays = outcome.failed.includes("access_token")
      ? "; the access token stays valid until it expires"
      : "";
    writeErr(
      `warning: ${what} for ${resource} not revoked at ${tokens.issuer}: ${outcome.failure.reason}${stays}`,
    );
  }
  return outcome.offered && outcome.failed.length === 0;
}
