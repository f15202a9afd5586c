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
 */
import { decodeJwt } from "jose";
import type * as oauth from "oauth4webapi";
import {
  AuthorizationError,
  type HttpAuthAnswer,
  type HttpAuthChallenge,
  type HttpAuthProvider,
  type HttpAuthRequest,
} from "../transports/http/client/auth.js";
import { type ClientIdentityOptions, clientIdentity } from "./client-identity.js";
import { DEVICE_CODE_GRANT, type DeviceCodeOptions, deviceCodeGrant } from "./device-grant.js";
import {
  discoverAuthorizationServer,
  discoverResource,
  findResourceMetadata,
  type ResourceMetadata,
} from "./discovery.js";
import { DpopKey, DpopNonces, dpopAlgorithm } from "./dpop.js";
import { type EnterpriseOptions, identityAssertionGrant } from "./enterprise.js";
import {
  authorizationCodeGrant,
  clientCredentialsGrant,
  type GrantContext,
  JWT_BEARER_GRANT,
  jwtBearerGrant,
  refreshGrant,
} from "./grants.js";
import { AuthHttp } from "./http.js";
import { legacyAuthorizationServer } from "./legacy-discovery.js";
import type { RedirectHandler } from "./redirect.js";
import { type Revocation, revokeTokens } from "./revocation.js";
import { InMemoryTokenStore, type StoredTokens, type TokenStore } from "./token-store.js";
import {
  type AuthChallenge,
  parseWwwAuthenticate,
  type ResourceChallenge,
  resourceChallenge,
  splitScopes,
} from "./www-authenticate.js";

export type OAuthGrant =
  | "authorization_code"
  | "client_credentials"
  | "jwt_bearer"
  | "enterprise"
  | "device_code";

export interface OAuthClientOptions extends ClientIdentityOptions {
  /**
   * "authorization_code" (default; needs `redirect`), "client_credentials", "jwt_bearer" (needs
   * `assertion`) or "enterprise" (needs `enterprise`).
   */
  grant?: OAuthGrant;
  /**
   * For "jwt_bearer": the JWT to present (RFC 7523), e.g. a workload identity token; a function
   * is asked each time a token is needed (see `assertionFromFile`).
   */
  assertion?: string | (() => string | Promise<string>);
  /** For "enterprise": the identity provider and the user's ID token. */
  enterprise?: EnterpriseOptions;
  /**
   * DPoP-bound tokens (RFC 9449). true: always ask for them; false: never; default: when the
   * authorization server offers DPoP and the MCP server shows it accepts it.
   */
  dpop?: boolean;
  /** How the user authorizes (authorization code grant). */
  redirect?: RedirectHandler;
  /** For "device_code" (RFC 8628): how the user is shown the code (and Ctrl-C's signal). */
  device?: DeviceCodeOptions;
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
  /** The key of the current tokens (or the one new tokens will be bound to). */
  private dpop: DpopKey | undefined;
  /** The MCP server challenged with the DPoP scheme or names DPoP in its metadata. */
  private resourceTakesDpop = false;
  /** The MCP server's newest DPoP nonces. */
  private readonly nonces = new DpopNonces();

  constructor(options: OAuthClientOptions) {
    const grant = options.grant ?? "authorization_code";
    if (grant === "authorization_code" && !options.redirect) {
      throw new TypeError("OAuthClient: the authorization code grant needs a redirect handler");
    }
    if (
      grant !== "authorization_code" &&
      grant !== "enterprise" &&
      grant !== "device_code" &&
      options.clientId === undefined
    ) {
      throw new TypeError(`OAuthClient: the ${grant} grant needs a clientId`);
    }
    if (grant === "device_code" && options.device === undefined) {
      throw new TypeError(
        "OAuthClient: the device_code grant needs `device` (how to show the code)",
      );
    }
    if (grant === "jwt_bearer" && options.assertion === undefined) {
      throw new TypeError("OAuthClient: the jwt_bearer grant needs an assertion");
    }
    if (grant === "enterprise" && (options.enterprise === undefined || !options.clientId)) {
      throw new TypeError("OAuthClient: the enterprise grant needs `enterprise` and a clientId");
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
    return this.requestHeaders(request, this.tokens as StoredTokens);
  }

  /** Keeps the newest DPoP nonce the server handed out, whatever the answer. */
  onAnswer(answer: HttpAuthAnswer): void {
    const nonce = answer.header("dpop-nonce");
    if (nonce !== null) this.nonces.remember(answer.request.url, nonce);
  }

  async onChallenge(challenge: HttpAuthChallenge): Promise<"retry" | "fail"> {
    if (this.wantsDpopNonce(challenge)) return "retry";
    // The one retry for new credentials was spent: another challenge is the answer.
    if (challenge.retried) return "fail";
    const parsed = resourceChallenge(challenge.headers);
    if (parseWwwAuthenticate(challenge.headers.get("www-authenticate")).some(isDpop)) {
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
   * A 401 whose DPoP challenge says `use_dpop_nonce` to a request that carried a proof: worth
   * sending again with the newest nonce (RFC 9449 §9; onAnswer kept it). False when it is no
   * such answer, or the newest nonce is the very one the refused proof carried (asking again
   * with it would only be refused again).
   */
  private wantsDpopNonce(challenge: HttpAuthChallenge): boolean {
    const nonce = challenge.headers.get("dpop-nonce");
    const proof = challenge.sent.DPoP;
    if (challenge.status !== 401 || nonce === null || proof === undefined) return false;
    const asked = parseWwwAuthenticate(challenge.headers.get("www-authenticate")).some(
      (c) => isDpop(c) && c.params.error === "use_dpop_nonce",
    );
    // Parallel requests refused alike all retry: compared with what each one sent.
    if (!asked || this.dpop === undefined) return false;
    // The newest nonce (another answer may have brought a newer one meanwhile), if it is new.
    const current = this.nonces.for(challenge.request.url);
    return current !== undefined && current !== decodeJwt(proof).nonce;
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
        ? await revokeTokens(tokens, this.store, this.options)
        : undefined;
    if (this.resourceKey !== undefined) await this.store.deleteTokens(this.resourceKey);
    this.tokens = undefined;
    return revocation;
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
    // New tokens: bound to the key in use, or to a new one when DPoP starts here.
    const context: GrantContext = { ...session.grant, ...(await this.dpopFor(session)) };
    let response: oauth.TokenEndpointResponse;
    switch (this.options.grant ?? "authorization_code") {
      case "client_credentials":
        response = await clientCredentialsGrant(context, asked);
        break;
      case "jwt_bearer":
        response = await jwtBearerGrant(context, await this.assertion(), asked);
        break;
      case "device_code":
        response = await deviceCodeGrant(context, asked, this.options.device as DeviceCodeOptions);
        break;
      case "enterprise": {
        const grant = await identityAssertionGrant(
          this.http,
          this.options.enterprise as EnterpriseOptions,
          as.issuer,
          context.resource,
          asked,
        );
        response = await jwtBearerGrant(context, grant, asked);
        break;
      }
      default:
        response = await authorizationCodeGrant(
          context,
          this.options.redirect as RedirectHandler,
          asked,
        );
    }
    await this.keep(response, as.issuer, scopes, undefined, context.dpop);
  }

  private async assertion(): Promise<string> {
    const source = this.options.assertion as NonNullable<OAuthClientOptions["assertion"]>;
    let value: unknown;
    try {
      value = typeof source === "string" ? source : await source();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new AuthorizationError(
        "token",
        `the JWT bearer assertion could not be obtained${typeof code === "string" ? ` (${code})` : ""}`,
      );
    }
    if (typeof value !== "string" || value.length === 0) {
      throw new AuthorizationError("token", "the JWT bearer assertion provider gave no assertion");
    }
    return value;
  }

  /**
   * The DPoP key for a grant at this session's authorization server: the current one, a new
   * one, or none (see the `dpop` option).
   */
  private async dpopFor(session: Session): Promise<{ dpop?: DpopKey }> {
    if (this.options.dpop === false) return {};
    const offered = session.grant.as.dpop_signing_alg_values_supported;
    if (this.dpop !== undefined && (offered === undefined || offered.includes(this.dpop.alg))) {
      return { dpop: this.dpop };
    }
    const wanted =
      this.options.dpop === true ||
      (offered !== undefined && (this.resourceTakesDpop || session.metadata.dpop === true));
    const alg = wanted ? dpopAlgorithm(offered) : undefined;
    if (alg === undefined) return {};
    this.dpop = await DpopKey.generate(alg);
    return { dpop: this.dpop };
  }

  private async refresh(endpoint: URL, tokens: StoredTokens, known: Session | undefined) {
    const session = known ?? this.session ?? (await this.discover(endpoint, undefined));
    if (session.grant.as.issuer !== tokens.issuer) {
      throw new AuthorizationError("refresh", "the token came from another authorization server");
    }
    // A DPoP-bound refresh token is refreshed with the key it is bound to.
    const dpop = tokens.dpopKey === undefined ? undefined : this.dpop;
    const response = await refreshGrant(
      dpop === undefined ? session.grant : { ...session.grant, dpop },
      tokens.refreshToken as string,
    );
    await this.keep(
      response,
      tokens.issuer,
      tokens.requestedScopes ?? [],
      tokens.refreshToken,
      dpop,
    );
  }

  private async discover(endpoint: URL, hinted: string | undefined): Promise<Session> {
    const found =
      // A hinted PRM must be there; without a hint, its absence means a 2025-03-26 server.
      hinted === undefined
        ? await findResourceMetadata(this.http, endpoint, undefined)
        : await discoverResource(this.http, endpoint, hinted);
    const { metadata, as } =
      "tried" in found
        ? await legacyAuthorizationServer(this.http, endpoint)
        : {
            metadata: found,
            // RFC 9728 §7.6 leaves the choice to the client: the first one listed.
            as: await discoverAuthorizationServer(
              this.http,
              found.authorizationServers[0] as string,
            ),
          };
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
    const grant = this.options.grant ?? "authorization_code";
    return {
      redirectUris: this.options.redirect ? [this.options.redirect.redirectUri] : [],
      grantTypes:
        grant === "authorization_code"
          ? ["authorization_code", "refresh_token"]
          : grant === "device_code"
            ? [DEVICE_CODE_GRANT, "refresh_token"]
            : grant === "client_credentials"
              ? ["client_credentials"]
              : [JWT_BEARER_GRANT],
    };
  }

  // ---- tokens --------------------------------------------------------------------------------

  private async keep(
    response: oauth.TokenEndpointResponse,
    issuer: string,
    requestedScopes: readonly string[],
    previousRefresh: string | undefined,
    dpop: DpopKey | undefined,
  ): Promise<void> {
    const refreshToken = response.refresh_token ?? previousRefresh;
    const lifetime = response.expires_in;
    const tokenType = response.token_type.toLowerCase();
    if (tokenType === "dpop" && dpop === undefined) {
      throw new AuthorizationError("token", "the server issued a DPoP token without a DPoP proof");
    }
    const tokens: StoredTokens = {
      accessToken: response.access_token,
      tokenType,
      // Kept with a bound token, and with a bearer one too when the refresh token may be bound.
      ...(dpop === undefined ? {} : { dpopKey: dpop.stored }),
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
    if (tokens.expiresAt === undefined) return false;
    return this.now() >= tokens.expiresAt - (this.options.refreshLeewayMs ?? 30_000);
  }

  /** Authorization (and for a DPoP-bound token, a fresh proof for this very request). */
  private async requestHeaders(
    request: HttpAuthRequest,
    tokens: StoredTokens,
  ): Promise<Record<string, string>> {
    if (tokens.tokenType !== "dpop") return { Authorization: authorizationOf(tokens) };
    const key = this.dpop as DpopKey;
    return {
      Authorization: authorizationOf(tokens),
      DPoP: await key.proof(
        request.method,
        request.url,
        tokens.accessToken,
        this.nonces.for(request.url),
      ),
    };
  }

  /** SEP-2207: `offline_access` only when the authorization server lists it. */
  private withOfflineAccess(as: oauth.AuthorizationServer, scopes: readonly string[]) {
    if (
      this.options.offlineAccess === false ||
      !USER_GRANTS.includes(this.options.grant ?? "authorization_code") ||
      scopes.length === 0 ||
      scopes.includes("offline_access") ||
      !as.scopes_supported?.includes("offline_access")
    ) {
      return scopes;
    }
    return [...scopes, "offline_access"];
  }
}

/** The key stored with `tokens`: undefined for unbound ones, false when it cannot be used. */
async function restoredKey(tokens: StoredTokens | undefined): Promise<DpopKey | undefined | false> {
  if (tokens?.dpopKey === undefined) return tokens?.tokenType === "dpop" ? false : undefined;
  try {
    return await DpopKey.restore(tokens.dpopKey);
  } catch {
    return false;
  }
}

/** The grants where a person authorizes, and a refresh token saves asking again. */
const USER_GRANTS: readonly OAuthGrant[] = ["authorization_code", "device_code"];

function isDpop(challenge: AuthChallenge): boolean {
  return challenge.scheme === "dpop";
}

function authorizationOf(tokens: StoredTokens): string {
  return `${tokens.tokenType === "dpop" ? "DPoP" : "Bearer"} ${tokens.accessToken}`;
}

function union(...lists: (readonly string[])[]): string[] {
  return [...new Set(lists.flat())];
}

/** Scopes from a space-separated string (a convenience for options). */
export function scopesOf(scope: string | undefined): string[] {
  return scope === undefined ? [] : splitScopes(scope);
}
