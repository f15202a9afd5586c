/**
 * The OAuth client as an HttpAuthProvider for HttpClientTransport's `auth` option: it sends the
 * token it holds, and answers the server's challenges.
 *
 * - 401: discover afresh (the server may have moved to another authorization server), then
 *   refresh when the token came from the same issuer and a refresh token exists, else authorize
 *   from scratch (authorization code + PKCE, or client credentials).
 * - 403 `insufficient_scope`: step up, asking for the union of the scopes asked before and the
 *   challenged ones; refused when that adds nothing (the server would only refuse again).
 * - Before a request, a token about to expire is refreshed.
 *
 * One OAuthClient serves one MCP server (its tokens are bound to that resource). One renewal at
 * a time per client: parallel requests that meet an expired token wait for the
 * same refresh and then retry with its result, so a rotating refresh token is used once.
 */
import type * as oauth from "oauth4webapi";
import {
  AuthorizationError,
  type HttpAuthChallenge,
  type HttpAuthProvider,
  type HttpAuthRequest,
} from "../transports/http/client/auth.js";
import { type ClientIdentityOptions, clientIdentity } from "./client-identity.js";
import {
  discoverAuthorizationServer,
  discoverResource,
  type ResourceMetadata,
} from "./discovery.js";
import {
  authorizationCodeGrant,
  clientCredentialsGrant,
  type GrantContext,
  refreshGrant,
} from "./grants.js";
import { AuthHttp } from "./http.js";
import type { RedirectHandler } from "./redirect.js";
import { InMemoryTokenStore, type StoredTokens, type TokenStore } from "./token-store.js";
import { type ResourceChallenge, resourceChallenge, splitScopes } from "./www-authenticate.js";

export interface OAuthClientOptions extends ClientIdentityOptions {
  /** "authorization_code" (default; needs `redirect`) or "client_credentials". */
  grant?: "authorization_code" | "client_credentials";
  /** How the user authorizes (authorization code grant). */
  redirect?: RedirectHandler;
  /** Scopes to ask for besides those the server names. */
  scopes?: readonly string[];
  /** Ask for `offline_access` (a refresh token) when the authorization server lists it. Default true. */
  offlineAccess?: boolean;
  /** Tokens and registrations. Default: in memory. */
  store?: TokenStore;
  /** The fetch for authorization server requests (and the headless redirect). */
  fetch?: typeof fetch;
  /** Per request to an authorization server. Default 30 s. */
  timeoutMs?: number;
  /** Refresh this long before a token expires. Default 30 s. */
  refreshLeewayMs?: number;
  /** Step-up authorizations for one client, at most. Default 3. */
  maxStepUps?: number;
  /** The clock (tests). Default Date.now. */
  now?: () => number;
}

interface Session {
  readonly metadata: ResourceMetadata;
  readonly grant: GrantContext;
}

export class OAuthClient implements HttpAuthProvider {
  private readonly options: OAuthClientOptions;
  private readonly http: AuthHttp;
  private readonly store: TokenStore;
  private readonly now: () => number;
  private tokens: StoredTokens | undefined;
  private loaded = false;
  private session: Session | undefined;
  private renewal: Promise<void> | undefined;
  private stepUps = 0;
  private resourceKey: string | undefined;

  constructor(options: OAuthClientOptions) {
    if ((options.grant ?? "authorization_code") === "authorization_code" && !options.redirect) {
      throw new TypeError("OAuthClient: the authorization code grant needs a redirect handler");
    }
    if (options.grant === "client_credentials" && options.clientId === undefined) {
      throw new TypeError("OAuthClient: the client credentials grant needs a clientId");
    }
    this.options = options;
    this.http = new AuthHttp(options.fetch, options.timeoutMs);
    this.store = options.store ?? new InMemoryTokenStore();
    this.now = options.now ?? Date.now;
  }

  async headers(request: HttpAuthRequest): Promise<Record<string, string>> {
    if (!this.loaded) await this.load(request.endpoint);
    else if (request.endpoint.href !== this.resourceKey) {
      // Tokens are audience-bound (RFC 8707): another server's must come from its own client.
      throw new AuthorizationError(
        "request",
        "this OAuthClient already serves another MCP server: make one per server",
      );
    }
    // Wait for a renewal in progress (a failed one was the challenger's to report).
    while (this.renewal) await this.renewal.catch(() => {});
    const tokens = this.tokens;
    if (tokens === undefined) return {};
    if (tokens.refreshToken !== undefined && this.expiring(tokens)) {
      // Checked and started without an await in between: concurrent callers wait above.
      // A failed refresh leaves no token: the server's 401 then starts a full authorization.
      this.renewal = this.refresh(request.endpoint, tokens, undefined)
        .catch(() => this.forgetTokens())
        .finally(() => {
          this.renewal = undefined;
        });
      await this.renewal;
      if (this.tokens === undefined) return {};
    }
    return { Authorization: `Bearer ${(this.tokens as StoredTokens).accessToken}` };
  }

  async onChallenge(challenge: HttpAuthChallenge): Promise<"retry" | "fail"> {
    const parsed = resourceChallenge(challenge.headers);
    if (challenge.status === 403 && parsed?.error !== "insufficient_scope") return "fail";
    while (this.renewal) {
      const failure = await this.renewal.then(
        () => undefined,
        (error: unknown) => error,
      );
      if (failure !== undefined) throw failure;
    }
    // Another request renewed the credentials after this one was sent: just send it again.
    if (this.tokens !== undefined && this.authorizationHeader() !== challenge.sent.Authorization) {
      return "retry";
    }
    this.renewal = (
      challenge.status === 403
        ? this.stepUp(challenge.request.endpoint, parsed as ResourceChallenge)
        : this.reauthorize(challenge.request.endpoint, parsed)
    ).finally(() => {
      this.renewal = undefined;
    });
    await this.renewal;
    return "retry";
  }

  /** Forgets the tokens of this client (and the store's). Registrations stay. */
  async logout(): Promise<void> {
    if (this.resourceKey !== undefined) await this.store.deleteTokens(this.resourceKey);
    this.tokens = undefined;
  }

  // ---- steps ---------------------------------------------------------------------------------

  private async reauthorize(endpoint: URL, challenge: ResourceChallenge | undefined) {
    const session = await this.discover(endpoint, challenge?.resourceMetadata);
    let tokens = this.tokens;
    if (tokens !== undefined && tokens.issuer !== session.grant.as.issuer) {
      // The server moved to another authorization server: its tokens mean nothing here.
      await this.forgetTokens();
      tokens = undefined;
    }
    if (tokens?.refreshToken !== undefined) {
      try {
        return await this.refresh(endpoint, tokens, session);
      } catch {
        // The refresh token is spent or revoked: authorize from the start.
      }
    }
    const scopes = union(
      tokens?.requestedScopes ?? [],
      this.options.scopes ?? [],
      challenge?.scopes ?? session.metadata.scopesSupported ?? [],
    );
    await this.authorize(session, scopes);
  }

  private async stepUp(endpoint: URL, challenge: ResourceChallenge): Promise<void> {
    const before = this.tokens?.requestedScopes ?? [];
    const scopes = union(before, challenge.scopes ?? []);
    if (scopes.length === before.length) {
      throw new AuthorizationError(
        "step-up",
        `the server refuses with insufficient_scope although ${scopes.join(" ") || "every scope it named"} was already requested`,
      );
    }
    if (this.stepUps >= (this.options.maxStepUps ?? 3)) {
      throw new AuthorizationError("step-up", "too many step-up authorizations; giving up");
    }
    this.stepUps += 1;
    const session = this.session ?? (await this.discover(endpoint, challenge.resourceMetadata));
    await this.authorize(session, scopes);
  }

  private async authorize(session: Session, scopes: readonly string[]): Promise<void> {
    try {
      await this.grant(session, scopes);
    } catch (error) {
      // A registration the server no longer knows (expired, deleted): register again, once.
      if (
        !(error instanceof AuthorizationError) ||
        error.serverError !== "invalid_client" ||
        session.grant.identity.source !== "registered"
      ) {
        throw error;
      }
      const issuer = session.grant.as.issuer;
      await this.store.deleteClient(issuer);
      const identity = await clientIdentity(
        this.http,
        this.store,
        session.grant.as,
        this.options,
        this.identityRequest(),
      );
      const renewed: Session = { ...session, grant: { ...session.grant, identity } };
      this.session = renewed;
      await this.grant(renewed, scopes);
    }
  }

  private async grant(session: Session, scopes: readonly string[]): Promise<void> {
    const { as } = session.grant;
    const asked = this.withOfflineAccess(as, scopes);
    const response =
      this.options.grant === "client_credentials"
        ? await clientCredentialsGrant(session.grant, asked)
        : await authorizationCodeGrant(
            session.grant,
            this.options.redirect as RedirectHandler,
            asked,
          );
    await this.keep(response, as.issuer, scopes, undefined);
  }

  private async refresh(endpoint: URL, tokens: StoredTokens, known: Session | undefined) {
    const session = known ?? this.session ?? (await this.discover(endpoint, undefined));
    if (session.grant.as.issuer !== tokens.issuer) {
      throw new AuthorizationError("refresh", "the token came from another authorization server");
    }
    const response = await refreshGrant(session.grant, tokens.refreshToken as string);
    await this.keep(response, tokens.issuer, tokens.requestedScopes ?? [], tokens.refreshToken);
  }

  private async discover(endpoint: URL, hinted: string | undefined): Promise<Session> {
    const metadata = await discoverResource(this.http, endpoint, hinted);
    // RFC 9728 §7.6 leaves the choice to the client: the first one listed.
    const issuer = metadata.authorizationServers[0] as string;
    const as = await discoverAuthorizationServer(this.http, issuer);
    const identity = await clientIdentity(
      this.http,
      this.store,
      as,
      this.options,
      this.identityRequest(),
    );
    const session: Session = {
      metadata,
      grant: { http: this.http, as, identity, resource: metadata.resource },
    };
    this.session = session;
    return session;
  }

  private identityRequest() {
    return {
      redirectUris: this.options.redirect ? [this.options.redirect.redirectUri] : [],
      grantTypes:
        this.options.grant === "client_credentials"
          ? ["client_credentials"]
          : ["authorization_code", "refresh_token"],
    };
  }

  // ---- tokens --------------------------------------------------------------------------------

  private async keep(
    response: oauth.TokenEndpointResponse,
    issuer: string,
    requestedScopes: readonly string[],
    previousRefresh: string | undefined,
  ): Promise<void> {
    const refreshToken = response.refresh_token ?? previousRefresh;
    const lifetime = response.expires_in;
    const tokens: StoredTokens = {
      accessToken: response.access_token,
      tokenType: response.token_type,
      ...(refreshToken === undefined ? {} : { refreshToken }),
      ...(typeof lifetime === "number" ? { expiresAt: this.now() + lifetime * 1000 } : {}),
      requestedScopes: [...requestedScopes],
      issuer,
    };
    this.tokens = tokens;
    if (this.resourceKey !== undefined) await this.store.setTokens(this.resourceKey, tokens);
  }

  private async load(endpoint: URL): Promise<void> {
    this.resourceKey = endpoint.href;
    const stored = await this.store.getTokens(this.resourceKey);
    if (!this.loaded) {
      this.loaded = true;
      this.tokens ??= stored;
    }
  }

  private async forgetTokens(): Promise<void> {
    this.tokens = undefined;
    if (this.resourceKey !== undefined) await this.store.deleteTokens(this.resourceKey);
  }

  private expiring(tokens: StoredTokens): boolean {
    if (tokens.expiresAt === undefined) return false;
    return this.now() >= tokens.expiresAt - (this.options.refreshLeewayMs ?? 30_000);
  }

  private authorizationHeader(): string | undefined {
    return this.tokens === undefined ? undefined : `Bearer ${this.tokens.accessToken}`;
  }

  /** SEP-2207: `offline_access` only when the authorization server lists it. */
  private withOfflineAccess(as: oauth.AuthorizationServer, scopes: readonly string[]) {
    if (
      this.options.offlineAccess === false ||
      this.options.grant === "client_credentials" ||
      scopes.length === 0 ||
      scopes.includes("offline_access") ||
      !as.scopes_supported?.includes("offline_access")
    ) {
      return scopes;
    }
    return [...scopes, "offline_access"];
  }
}

function union(...lists: (readonly string[])[]): string[] {
  return [...new Set(lists.flat())];
}

/** Scopes from a space-separated string (a convenience for options). */
export function scopesOf(scope: string | undefined): string[] {
  return scope === undefined ? [] : splitScopes(scope);
}
