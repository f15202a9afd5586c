/**
 * Opaque access tokens checked by RFC 7662 introspection at the authorization server (the
 * endpoint from its metadata, this resource server authenticating as a client). An inactive
 * token, one from another issuer, one whose audience does not name this resource, and one whose
 * time claims are not numbers or say it is not valid now is refused. Requests go through an
 * IntrospectionGate (refusals remembered briefly, identical questions shared, concurrency
 * capped); answers are read up to AuthHttp's cap.
 */
import * as oauth from "oauth4webapi";
import { discoverAuthorizationServer } from "../discovery.js";
import { AuthHttp } from "../http.js";
import { checkServerUrl } from "./config-checks.js";
import { IntrospectionGate } from "./introspection-gate.js";
import { issuedInFuture } from "./jwt-verifier.js";
import { InvalidTokenError, optionalString, scopesFrom, type VerifiedToken } from "./principal.js";
import { audienceNames, normalResourceId } from "./resource-id.js";
import { impliedScopesOf, type ScopeHierarchy, withImpliedScopes } from "./scope-hierarchy.js";
import type { TokenVerifier } from "./verifier.js";

export interface IntrospectionOptions {
  /** The issuer identifier (its metadata names the introspection endpoint). */
  issuer: string;
  /** The introspection endpoint; default: `introspection_endpoint` of the issuer's metadata. */
  endpoint?: string;
  /** This resource server's client credentials at the authorization server. */
  clientId: string;
  clientSecret: string;
  /** How the secret is sent. Default client_secret_basic. */
  clientAuthentication?: "client_secret_basic" | "client_secret_post";
  /**
   * Refuse an answer without `aud` (default true): the spec requires checking that the token
   * was issued for this resource, and without `aud` nothing says so.
   */
  requireAudience?: boolean;
  /**
   * How long an answer is trusted (ms), never past the token's `exp`: a revoked token is refused
   * after at most this. Default 60 s; 0 asks on every request. An answer without `exp` is
   * remembered only when this is set.
   */
  maxCacheMs?: number;
  /** How long a refusal is remembered (ms), so one bad token is not asked about again and again. Default 5 s; 0: not at all. */
  negativeCacheMs?: number;
  /** Introspection requests at once. Default 10. */
  maxConcurrentRequests?: number;
  /** Requests waiting for one of those; beyond it 503. Default 1,000. */
  maxQueuedRequests?: number;
  /** Longest a request waits for one (ms), then 503. Default: `timeoutMs`. */
  maxQueueWaitMs?: number;
  /** Leeway for `nbf`/`iat` in the future (seconds). Default 5. */
  clockToleranceSec?: number;
  /** Timeout of each request (ms). Default 5 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Which scopes imply which (a broader one granting narrower ones). Default: exact matching. */
  scopeHierarchy?: ScopeHierarchy;
}

export function tokenIntrospection(options: IntrospectionOptions): TokenVerifier {
  const { issuer } = options;
  checkServerUrl("tokenIntrospection: issuer", issuer);
  if (options.endpoint !== undefined)
    checkServerUrl("tokenIntrospection: endpoint", options.endpoint);
  const timeoutMs = options.timeoutMs ?? 5_000;
  const http = new AuthHttp(options.fetch, timeoutMs);
  const toleranceSec = options.clockToleranceSec ?? 5;
  const implies = impliedScopesOf(options.scopeHierarchy);
  const gate = new IntrospectionGate({
    maxConcurrent: options.maxConcurrentRequests ?? 10,
    maxQueued: options.maxQueuedRequests ?? 1_000,
    maxWaitMs: options.maxQueueWaitMs ?? timeoutMs,
    negativeCacheMs: options.negativeCacheMs ?? 5_000,
    maxRemembered: 10_000,
  });
  const client: oauth.Client = { client_id: options.clientId };
  const auth =
    options.clientAuthentication === "client_secret_post"
      ? oauth.ClientSecretPost(options.clientSecret)
      : oauth.ClientSecretBasic(options.clientSecret);
  let server: Promise<oauth.AuthorizationServer> | undefined;

  const metadata = async (): Promise<oauth.AuthorizationServer> => {
    if (options.endpoint !== undefined) {
      return { issuer, introspection_endpoint: options.endpoint };
    }
    const found = await discoverAuthorizationServer(http, issuer);
    if (typeof found.introspection_endpoint !== "string") {
      throw new Error(`the authorization server ${issuer} publishes no introspection_endpoint`);
    }
    return found;
  };

  const introspect = async (token: string, resource: string): Promise<VerifiedToken> => {
    server ??= metadata().catch((error: unknown) => {
      server = undefined;
      throw error;
    });
    const as = await server;
    const requestOptions = http.options(
      as.introspection_endpoint,
      "discovery",
      "the introspection endpoint",
    );
    const response = await oauth.introspectionRequest(as, client, auth, token, {
      ...requestOptions,
      additionalParameters: { token_type_hint: "access_token" },
    });
    const answer = await oauth.processIntrospectionResponse(as, client, response);
    if (!answer.active) throw new InvalidTokenError("the token is not active");
    if (answer.iss !== undefined && answer.iss !== issuer) {
      throw new InvalidTokenError("the token's iss claim is not acceptable");
    }
    const exp = checkTimes(answer, toleranceSec);
    const named =
      answer.aud === undefined
        ? options.requireAudience === false
        : audienceNames(answer.aud, normalResourceId(resource) ?? resource);
    if (!named) {
      throw new InvalidTokenError("the token's audience is not this resource");
    }
    const cnf = answer.cnf as { jkt?: unknown } | undefined;
    return {
      issuer,
      subject: optionalString(answer.sub),
      clientId: optionalString(answer.client_id),
      scopes: withImpliedScopes(scopesFrom(answer), implies),
      exp,
      jkt: optionalString(cnf?.jkt),
      claims: answer,
      // Without exp nothing says how long the answer holds: remembered only when told how long.
      ...(exp === undefined && options.maxCacheMs === undefined ? { maxCacheMs: 0 } : {}),
    };
  };

  return {
    maxCacheMs: options.maxCacheMs ?? 60_000,
    verify: (token, resource) =>
      gate.check(`${resource} ${token}`, () => introspect(token, resource)),
  };
}

/** `exp` (checked not passed), after checking the types and values of `exp`, `nbf` and `iat`. */
function checkTimes(answer: Record<string, unknown>, toleranceSec: number): number | undefined {
  for (const claim of ["exp", "nbf", "iat"]) {
    const value = answer[claim];
    if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value))) {
      throw new InvalidTokenError(`the introspection answer's ${claim} is not a number`);
    }
  }
  const { exp, nbf, iat } = answer as { exp?: number; nbf?: number; iat?: number };
  if (exp !== undefined && exp * 1000 <= Date.now()) {
    throw new InvalidTokenError("the token has expired");
  }
  if (nbf !== undefined && nbf > Date.now() / 1000 + toleranceSec) {
    throw new InvalidTokenError("the token is not valid yet (nbf)");
  }
  if (issuedInFuture(iat, toleranceSec)) {
    throw new InvalidTokenError("the token's iat claim is in the future");
  }
  return exp;
}
