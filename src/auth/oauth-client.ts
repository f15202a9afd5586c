/**
 * The OAuth client as an HttpAuthProvider for HttpClientTransport's `auth` option: it sends the
 * token it holds, and answers the server's challenges.
 *
 * - 401: discover afresh (the server may have moved to another authorization server), then
 *   refresh when the token came from the same issuer and a refresh token exists, else authorize
 *   from scratch (authorization code + PKCE, or client credentials). A refresh is made as the
 *   client the tokens were issued to (given, or stored), never a new registration: with none
 *   known it fails, saying to log in again, and the tokens stay.
 * - 403 `insufficient_scope`: step up, asking for the union of the scopes asked before and the
 *   challenged ones; refused when that adds nothing (the server would only refuse again).
 * - Before a request, a token about to expire is refreshed.
 *
 * - 401 with a DPoP `use_dpop_nonce` error: send again with the nonce the server gave.
 * - Any answer with a `DPoP-Nonce` header (a 200 too): the next proofs carry that nonce
 *   (RFC 9449 §9). The authorization server's nonces are oauth4webapi's DPoP handle's to keep:
 *   it caches the one on every token endpoint answer.
 *
 * Grants: authorization code (with a redirect handler), client credentials, JWT bearer with an
 * assertion from the environment (workload identity), enterprise-managed (token exchange at the
 * enterprise IdP, then JWT bearer). Each is DPoP-bound (RFC 9449) when `dpop` says so, or by
 * default when the authorization server offers DPoP and the MCP server shows it takes DPoP
 * tokens (a DPoP challenge, or DPoP fields in its resource metadata).
 *
 * One OAuthClient serves one MCP server (its tokens are bound to that resource). One renewal at
 * a time per client: parallel requests that meet an expired token wait for the
 * same refresh and then retry with its result, so a rotating refresh token is used once.
 *
 * This file keeps that state and decides what each answer calls for; the options are in
 * oauth-options.ts, discovery in oauth-session.ts, the grants in grant-request.ts, the DPoP key
 * and nonce retries in dpop-binding.ts, and the tokens' own rules in held-tokens.ts.
 */
import type * as oauth from "oauth4webapi";
import {
  AuthorizationError,
  type HttpAuthAnswer,
  type HttpAuthChallenge,
  type HttpAuthProvider,
  type HttpAuthRequest,
} from "../transports/http/client/auth.js";
import type { ClientIdentity } from "./client-identity.js";
import { type DpopKey, DpopNonces } from "./dpop.js";
import { grantDpopKey, isDpopChallenge, restoredKey, wantsNewNonce } from "./dpop-binding.js";
import { grantRequest } from "./grant-request.js";
import { clientKnown, refreshGrant } from "./grants.js";
import {
  authorizationOf,
  expiring,
  type Issued,
  requestHeaders,
  tokensFrom,
} from "./held-tokens.js";
import { AuthHttp, addressScope } from "./http.js";
import {
  checkOptions,
  grantOf,
  type OAuthClientOptions,
  withOfflineAccess,
} from "./oauth-options.js";
import {
  authorizingIdentity,
  discoverSession,
  grantContext,
  refreshingIdentity,
  type Session,
  UnknownRefreshClient,
} from "./oauth-session.js";
import { type Revocation, revokeTokens } from "./revocation.js";
import { InMemoryTokenStore, type StoredTokens, type TokenStore } from "./token-store.js";
import {
  parseWwwAuthenticate,
  type ResourceChallenge,
  resourceChallenge,
} from "./www-authenticate.js";

export class OAuthClient implements HttpAuthProvider {
  private readonly options: OAuthClientOptions;
  /** Made for the MCP server once it is known (the first request). */
  private http: AuthHttp | undefined;
  private readonly store: TokenStore;
  private readonly now: () => number;
  private tokens: StoredTokens | undefined;
  private loaded = false;
  private session: Session | undefined;
  private renewal: Promise<void> | undefined;
  private stepUps = 0;
  private resourceKey: string | undefined;
  /** The key of the current tokens (or the one new tokens will be bound to). */
  private dpop: DpopKey | undefined;
  /** The MCP server challenged with the DPoP scheme or names DPoP in its metadata. */
  private resourceTakesDpop = false;
  /** The MCP server's newest DPoP nonces. */
  private readonly nonces = new DpopNonces();

  constructor(options: OAuthClientOptions) {
    checkOptions(options);
    this.options = options;
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
      // One that could not be tried (no client known) is the person's to resolve: it fails.
      this.renewal = this.refresh(request.endpoint, tokens, undefined)
        .catch(async (error: unknown) => {
          if (error instanceof UnknownRefreshClient) throw error;
          await this.forgetTokens();
        })
        .finally(() => {
          this.renewal = undefined;
        });
      await this.renewal;
      if (this.tokens === undefined) return {};
    }
    return requestHeaders(
      request,
      this.tokens as StoredTokens,
      this.dpop,
      this.nonces.for(request.url),
    );
  }

  /** Keeps the newest DPoP nonce the server handed out, whatever the answer. */
  onAnswer(answer: HttpAuthAnswer): void {
    const nonce = answer.header("dpop-nonce");
    if (nonce !== null) this.nonces.remember(answer.request.url, nonce);
  }

  async onChallenge(challenge: HttpAuthChallenge): Promise<"retry" | "fail"> {
    if (!this.loaded) await this.load(challenge.request.endpoint);
    if (wantsNewNonce(challenge, this.nonces, this.dpop !== undefined)) return "retry";
    // The one retry for new credentials was spent: another challenge is the answer.
    if (challenge.retried) return "fail";
    const parsed = resourceChallenge(challenge.headers);
    if (parseWwwAuthenticate(challenge.headers.get("www-authenticate")).some(isDpopChallenge)) {
      this.resourceTakesDpop = true;
    }
    if (challenge.status === 403 && parsed?.error !== "insufficient_scope") return "fail";
    while (this.renewal) {
      const failure = await this.renewal.then(
        () => undefined,
        (error: unknown) => error,
      );
      if (failure !== undefined) throw failure;
    }
    // Another request renewed the credentials after this one was sent: just send it again.
    if (
      this.tokens !== undefined &&
      authorizationOf(this.tokens) !== challenge.sent.Authorization
    ) {
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

  /**
   * Forgets the tokens of this client (and the store's). Registrations stay. With `revoke`, the
   * authorization server is first asked to revoke them (RFC 7009) where it offers that; what it
   * answered is returned (a failure too: the tokens are forgotten all the same).
   */
  async logout(options: { revoke?: boolean } = {}): Promise<Revocation | undefined> {
    const tokens = this.tokens;
    const revocation =
      options.revoke === true && tokens !== undefined
        ? await revokeTokens(tokens, this.store, {
            ...this.options,
            ...(this.resourceKey === undefined ? {} : { resource: this.resourceKey }),
          })
        : undefined;
    if (this.resourceKey !== undefined) await this.store.deleteTokens(this.resourceKey);
    this.tokens = undefined;
    return revocation;
  }

  // ---- steps ---------------------------------------------------------------------------------

  private async reauthorize(endpoint: URL, challenge: ResourceChallenge | undefined) {
    const session = await this.discover(endpoint, challenge?.resourceMetadata);
    let tokens = this.tokens;
    if (tokens !== undefined && tokens.issuer !== session.as.issuer) {
      // The server moved to another authorization server: its tokens mean nothing here.
      await this.forgetTokens();
      tokens = undefined;
    }
    if (tokens?.refreshToken !== undefined) {
      try {
        return await this.refresh(endpoint, tokens, session);
      } catch (error) {
        // No client to refresh as: a new authorization (and registration) is the person's call.
        if (error instanceof UnknownRefreshClient) throw error;
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
    const stored = await this.store.getClient(session.as.issuer);
    let identity = await authorizingIdentity(session, this.store, this.options);
    const redirect = this.options.redirect;
    if (
      this.options.checkStoredRegistration === true &&
      stored !== undefined &&
      identity.source === "registered" &&
      grantOf(this.options) === "authorization_code" &&
      redirect !== undefined &&
      !(await clientKnown(grantContext(session, identity), redirect.redirectUri))
    ) {
      // The authorization page would show the person an error and never come back.
      await this.store.deleteClient(session.as.issuer);
      identity = await authorizingIdentity(session, this.store, this.options);
    }
    try {
      await this.grant(session, identity, scopes);
    } catch (error) {
      // A registration the server no longer knows (expired, deleted): register again, once.
      if (
        !(error instanceof AuthorizationError) ||
        error.serverError !== "invalid_client" ||
        identity.source !== "registered"
      ) {
        throw error;
      }
      await this.store.deleteClient(session.as.issuer);
      const registered = await authorizingIdentity(session, this.store, this.options);
      await this.grant(session, registered, scopes);
    }
  }

  private async grant(
    session: Session,
    identity: ClientIdentity,
    scopes: readonly string[],
  ): Promise<void> {
    const { as } = session;
    // New tokens: bound to the key in use, or to a new one when DPoP starts here.
    const dpop = await grantDpopKey(this.options.dpop, session, this.dpop, this.resourceTakesDpop);
    if (dpop !== undefined) this.dpop = dpop;
    const context = { ...grantContext(session, identity), ...(dpop === undefined ? {} : { dpop }) };
    const response = await grantRequest(
      context,
      this.options,
      withOfflineAccess(this.options, as, scopes),
    );
    await this.keep(response, {
      issuer: as.issuer,
      requestedScopes: scopes,
      previousRefresh: undefined,
      dpop,
      now: this.now(),
    });
  }

  private async refresh(endpoint: URL, tokens: StoredTokens, known: Session | undefined) {
    const session = known ?? this.session ?? (await this.discover(endpoint, undefined));
    if (session.as.issuer !== tokens.issuer) {
      throw new AuthorizationError("refresh", "the token came from another authorization server");
    }
    const identity = await refreshingIdentity(session, this.store, this.options, endpoint);
    // A DPoP-bound refresh token is refreshed with the key it is bound to.
    const dpop = tokens.dpopKey === undefined ? undefined : this.dpop;
    const response = await refreshGrant(
      { ...grantContext(session, identity), ...(dpop === undefined ? {} : { dpop }) },
      tokens.refreshToken as string,
    );
    await this.keep(response, {
      issuer: tokens.issuer,
      requestedScopes: tokens.requestedScopes ?? [],
      previousRefresh: tokens.refreshToken,
      dpop,
      now: this.now(),
    });
  }

  private async discover(endpoint: URL, hinted: string | undefined): Promise<Session> {
    this.http ??= new AuthHttp(
      this.options.fetch,
      this.options.timeoutMs,
      addressScope(endpoint, this.options),
    );
    this.session = await discoverSession(this.http, endpoint, hinted, this.options);
    return this.session;
  }

  // ---- tokens --------------------------------------------------------------------------------

  private async keep(response: oauth.TokenEndpointResponse, issued: Issued): Promise<void> {
    const tokens = tokensFrom(response, issued);
    this.tokens = tokens;
    if (this.resourceKey !== undefined) await this.store.setTokens(this.resourceKey, tokens);
  }

  private async load(endpoint: URL): Promise<void> {
    this.resourceKey = endpoint.href;
    const stored = await this.store.getTokens(this.resourceKey);
    const key = await restoredKey(stored);
    if (!this.loaded) {
      this.loaded = true;
      // A DPoP token whose key is missing or unreadable is useless: authorize afresh instead.
      if (this.tokens === undefined && stored !== undefined && key !== false) {
        this.tokens = stored;
        this.dpop = key;
      }
    }
  }

  private async forgetTokens(): Promise<void> {
    this.tokens = undefined;
    if (this.resourceKey !== undefined) await this.store.deleteTokens(this.resourceKey);
  }

  private expiring(tokens: StoredTokens): boolean {
    return expiring(tokens, this.now(), this.options.refreshLeewayMs ?? 30_000);
  }
}

function union(...lists: (readonly string[])[]): string[] {
  return [...new Set(lists.flat())];
}
