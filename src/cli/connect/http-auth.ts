/**
 * How an HTTP verb authenticates, from its options, the environment and the token store:
 *
 * 1. `--bearer TOKEN`, `--bearer-file FILE` or $MCPWIRE_BEARER: a fixed bearer token.
 * 2. `--grant client_credentials` with `--client-id` (and `--client-secret` or
 *    $MCPWIRE_CLIENT_SECRET): the OAuth client credentials grant, headless, nothing stored.
 * 3. An Authorization header of the user's own (--header, a config file's headers): left alone.
 * 4. Tokens from `mcpwire auth login` in the token store (or --client-id / --client-metadata-url
 *    given): the OAuth client with that store, refreshing as needed; one that needs the user
 *    again says to run `mcpwire auth login`.
 * 5. Nothing: a 401 becomes one message naming the authorization server, the scopes and the
 *    command to run.
 *
 * mcpwire/auth (and oauth4webapi, jose) load only in cases 2, 4 and 5's 401.
 */
import { readFileSync } from "node:fs";
import { FileTokenStore, TokenStoreError } from "../../auth/file-token-store.js";
import type { RedirectHandler } from "../../auth/redirect.js";
import { printableLine } from "../../text/printable.js";
import {
  AuthorizationError,
  bearerToken,
  type HttpAuthProvider,
} from "../../transports/http/client/auth.js";
import type { ParsedArgs } from "../core/args.js";
import { CliError, UsageError } from "../core/errors.js";
import { AUTH_OPTIONS } from "./http-auth-options.js";
import { REFRESH_LEEWAY_MS, SharedTokenAuth } from "./shared-token-auth.js";

export interface AuthSettings {
  bearer?: string;
  clientId?: string;
  clientSecret?: string;
  /** The issuer the --client-id belongs to (else the one recorded, else the first used). */
  clientIssuer?: string;
  clientMetadataUrl?: string;
  scopes: string[];
  grant?: "client_credentials";
  /** Ask for DPoP-bound tokens whatever the servers show (default: when both show DPoP). */
  dpop?: true;
  /** Whether an option (not just the environment) asked for authorization. */
  given: boolean;
}

export function authSettings(
  options: ParsedArgs["options"],
  env: NodeJS.ProcessEnv = process.env,
): AuthSettings {
  const text = (name: string) => options[name] as string | undefined;
  const given = Object.keys(AUTH_OPTIONS).some((name) => options[name] !== undefined);
  let bearer = text("bearer");
  const bearerFile = text("bearer-file");
  if (bearer !== undefined && bearerFile !== undefined) {
    throw new UsageError("give the bearer token once: --bearer or --bearer-file, not both");
  }
  if (bearerFile !== undefined) bearer = readSecretFile(bearerFile, "--bearer-file");
  bearer ??= env.MCPWIRE_BEARER || undefined;
  if (bearer === "") throw new UsageError("the bearer token is empty");
  const grant = text("grant");
  if (grant !== undefined && grant !== "client_credentials") {
    throw new UsageError(
      `--grant takes client_credentials (the browser flow is mcpwire auth login), not ${JSON.stringify(grant)}`,
    );
  }
  const clientId = text("client-id");
  const clientSecret = text("client-secret") ?? (env.MCPWIRE_CLIENT_SECRET || undefined);
  const clientIssuer = text("client-issuer");
  if (clientIssuer !== undefined) {
    if (clientId === undefined) throw new UsageError("--client-issuer goes with --client-id");
    if (!URL.canParse(clientIssuer)) {
      throw new UsageError(
        `--client-issuer takes the issuer's URL, not ${JSON.stringify(clientIssuer)}`,
      );
    }
  }
  if (grant !== undefined && clientId === undefined) {
    throw new UsageError("--grant client_credentials needs --client-id (and its secret)");
  }
  if (bearer !== undefined && (clientId !== undefined || grant !== undefined)) {
    throw new UsageError(
      "a bearer token and an OAuth client (--client-id, --grant) exclude each other",
    );
  }
  if (bearer !== undefined && options.dpop === true) {
    throw new UsageError("--dpop binds OAuth tokens to a key: a bearer token cannot be bound");
  }
  const scope = text("scope");
  return {
    ...(bearer === undefined ? {} : { bearer }),
    ...(clientId === undefined ? {} : { clientId }),
    ...(clientSecret === undefined ? {} : { clientSecret }),
    ...(clientIssuer === undefined ? {} : { clientIssuer }),
    ...(text("client-metadata-url") === undefined
      ? {}
      : { clientMetadataUrl: text("client-metadata-url") }),
    scopes: scope === undefined ? [] : scope.split(/[\s,]+/).filter((s) => s !== ""),
    ...(grant === undefined ? {} : { grant }),
    ...(options.dpop === true ? { dpop: true as const } : {}),
    given,
  };
}

/** A secret from a file, the trailing newline an editor or `echo` leaves taken off. */
export function readSecretFile(path: string, option: string): string {
  let value: string;
  try {
    value = readFileSync(path, "utf8").trim();
  } catch (error) {
    throw new CliError(`cannot read ${option} ${path}: ${(error as Error).message}`);
  }
  if (value === "") throw new UsageError(`${option} ${path} is empty`);
  return value;
}

/** The provider for an HTTP target, or undefined to send only the user's own headers. */
export async function httpAuthProvider(
  url: URL,
  auth: AuthSettings,
  headers: Record<string, string>,
  log: (line: string) => void,
): Promise<HttpAuthProvider | undefined> {
  if (auth.bearer !== undefined) return bearerToken(auth.bearer);
  const { InMemoryTokenStore, OAuthClient } = auth.grant ? await import("../../auth/index.js") : {};
  if (OAuthClient && InMemoryTokenStore) {
    return new OAuthClient({
      grant: "client_credentials",
      clientId: auth.clientId as string,
      ...clientOptions(auth, new FileTokenStore()),
      store: new InMemoryTokenStore(),
    });
  }
  const ownHeader = Object.keys(headers).some((name) => name.toLowerCase() === "authorization");
  if (ownHeader && !auth.given) return undefined;
  if (ownHeader) {
    throw new UsageError("an Authorization header and the OAuth options exclude each other");
  }
  const store = new FileTokenStore();
  let stored = false;
  try {
    stored = (await store.getTokens(url.href)) !== undefined;
  } catch (error) {
    if (!(error instanceof TokenStoreError)) throw error;
    log(`warning: ${error.message}`);
  }
  if (stored || auth.clientId !== undefined || auth.clientMetadataUrl !== undefined) {
    const library = await import("../../auth/index.js");
    return new SharedTokenAuth(
      store,
      url,
      (shared) =>
        new library.OAuthClient({
          ...clientOptions(auth, store),
          store: shared,
          redirect: loginRequired(url),
          refreshLeewayMs: REFRESH_LEEWAY_MS,
        }),
    );
  }
  return loginHint(url);
}

/**
 * The OAuth client options the flags give (pre-registered client bound to its issuer, metadata
 * URL, scopes, DPoP); `store` records which issuer each --client-id belongs to.
 */
export function clientOptions(auth: AuthSettings, store: FileTokenStore) {
  return {
    ...(auth.clientId === undefined
      ? {}
      : {
          clientId: auth.clientId,
          clientIssuer: clientBinding(store, auth.clientId, auth.clientIssuer),
        }),
    ...(auth.clientSecret === undefined ? {} : { clientSecret: auth.clientSecret }),
    ...(auth.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: auth.clientMetadataUrl }),
    ...(auth.scopes.length === 0 ? {} : { scopes: auth.scopes }),
    ...(auth.dpop ? { dpop: true } : {}),
  };
}

/**
 * A --client-id's credentials go to one authorization server (2026-07-28 client registration):
 * --client-issuer's, else the one recorded in the token file, else the first one it is used
 * with, then recorded. Any other is refused before it hears anything, saying how to rebind.
 */
function clientBinding(
  store: FileTokenStore,
  clientId: string,
  explicit: string | undefined,
): (issuer: string) => Promise<boolean> {
  return async (issuer) => {
    const bound =
      explicit === issuer
        ? await store.bindClient(clientId, issuer, true)
        : (explicit ?? (await store.bindClient(clientId, issuer)));
    if (bound === issuer) return true;
    const where =
      explicit === undefined ? `recorded in ${store.file} when first used` : "--client-issuer";
    throw new AuthorizationError(
      "registration",
      printableLine(
        `the client ${clientId} belongs to ${bound} (${where}), and the server uses ${issuer}: nothing was sent there (--client-issuer ${issuer} if the client is registered there)`,
      ),
    );
  };
}

/** Where a verb that is not `auth login` would need the user: it says how to log in instead. */
function loginRequired(url: URL): RedirectHandler {
  return {
    redirectUri: "http://127.0.0.1/callback",
    async authorize() {
      throw new AuthorizationError(
        "authorize",
        `no usable token for ${url.href} (none stored, or it expired and could not be refreshed): run mcpwire auth login ${url.href}`,
      );
    },
  };
}

/** No authorization configured: a 401 is explained (and ends the command), nothing retried. */
function loginHint(url: URL): HttpAuthProvider {
  // Worked out once: the era probe and the legacy handshake both meet the 401.
  let explained: Promise<CliError> | undefined;
  return {
    async headers() {
      return {};
    },
    async onChallenge(challenge) {
      if (challenge.status !== 401) return "fail";
      explained ??= loginNeeded(url, challenge.headers);
      throw await explained;
    },
  };
}

async function loginNeeded(url: URL, headers: Headers): Promise<CliError> {
  const { AuthHttp } = await import("../../auth/http.js");
  const { discoverResource, resourceChallenge } = await import("../../auth/index.js");
  const challenge = resourceChallenge(headers);
  const command = `mcpwire auth login ${url.href}`;
  try {
    const metadata = await discoverResource(
      new AuthHttp(undefined, 10_000, { endpoint: url }),
      url,
      challenge?.resourceMetadata,
    );
    const scopes = challenge?.scopes ?? metadata.scopesSupported ?? [];
    return new CliError(
      printableLine(
        `${url.href} requires authorization from ${metadata.authorizationServers.join(" or ")}` +
          (scopes.length > 0 ? ` (scopes: ${scopes.join(" ")})` : ""),
      ),
      1,
      [
        `run: ${command}`,
        "or give a token with --bearer-file <file>, or a client with --client-id <id> --grant client_credentials",
      ],
    );
  } catch {
    // Not OAuth as the MCP spec describes it (or its metadata is unreachable): a plain token.
    return new CliError(`${url.href} requires authorization (HTTP 401)`, 1, [
      "it publishes no usable OAuth metadata: give a token with --bearer-file <file> or --header",
    ]);
  }
}
