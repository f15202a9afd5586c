/**
 * JWT access tokens (RFC 9068): signature checked against the issuer's JWKS (found through its
 * RFC 8414 / OIDC metadata, fetched by jose's remote key set, which caches it and fetches again
 * for an unknown `kid`, so key rotation needs nothing), `iss` equal to the issuer, `aud` naming
 * this resource (compared after RFC 3986 normalisation), `exp` present and not passed, `typ`
 * at+jwt. Both documents come over node:http (node-get.ts) unless the caller passes a fetch.
 */
import { createRemoteJWKSet, customFetch, errors, type JWTPayload, jwtVerify } from "jose";
import { assertSecureUrl } from "../../transports/http/client/auth.js";
import { discoverAuthorizationServer } from "../discovery.js";
import { AuthHttp } from "../http.js";
import { checkServerUrl } from "./config-checks.js";
import { nodeGet } from "./node-get.js";
import { InvalidTokenError, optionalString, scopesFrom, type VerifiedToken } from "./principal.js";
import { audienceNames, normalResourceId } from "./resource-id.js";
import { impliedScopesOf, type ScopeHierarchy, withImpliedScopes } from "./scope-hierarchy.js";
import type { TokenVerifier } from "./verifier.js";

export interface JwtAccessTokenOptions {
  /** The issuer identifier; tokens must carry it as `iss`, exactly. */
  issuer: string;
  /** The JWKS URL; default: `jwks_uri` of the issuer's metadata. */
  jwksUri?: string;
  /** Signature algorithms accepted. Default: the asymmetric ones jose supports. */
  algorithms?: string[];
  /**
   * `typ` header values accepted. Default `["at+jwt"]` (which also admits application/at+jwt),
   * as RFC 9068 §4 requires; add "JWT" for issuers that label access tokens so.
   */
  acceptedTypes?: string[];
  /** Leeway for `exp`/`nbf`/`iat` (seconds). Default 5. */
  clockToleranceSec?: number;
  /** After a JWKS fetch, how long an unknown `kid` waits before the next one (ms). Default 30 s. */
  jwksCooldownMs?: number;
  /** How long a fetched JWKS is used before it is fetched again (ms). Default 10 min. */
  jwksMaxAgeMs?: number;
  /** Timeout of each metadata and JWKS request (ms). Default 5 s. */
  timeoutMs?: number;
  /** How the metadata and the JWKS are fetched. Default: GETs over node:http/https (node-get.ts). */
  fetch?: typeof fetch;
  /** Which scopes imply which (a broader one granting narrower ones). Default: exact matching. */
  scopeHierarchy?: ScopeHierarchy;
}

const ASYMMETRIC = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

export function jwtAccessTokens(options: JwtAccessTokenOptions): TokenVerifier {
  const { issuer } = options;
  checkServerUrl("jwtAccessTokens: issuer", issuer);
  if (options.jwksUri !== undefined) checkServerUrl("jwtAccessTokens: jwksUri", options.jwksUri);
  const timeoutMs = options.timeoutMs ?? 5_000;
  const fetchFunction = options.fetch ?? nodeGet;
  const algorithms = options.algorithms ?? ASYMMETRIC;
  const types = new Set((options.acceptedTypes ?? ["at+jwt"]).map(normalizeType));
  const toleranceSec = options.clockToleranceSec ?? 5;
  const implies = impliedScopesOf(options.scopeHierarchy);
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;

  const keySet = async () => {
    let uri = options.jwksUri;
    if (uri === undefined) {
      const http = new AuthHttp(fetchFunction, timeoutMs);
      const metadata = await discoverAuthorizationServer(http, issuer);
      if (typeof metadata.jwks_uri !== "string") {
        throw new Error(`the authorization server ${issuer} publishes no jwks_uri`);
      }
      uri = metadata.jwks_uri;
    }
    const url = new URL(uri);
    assertSecureUrl(url, "discovery", "the JWKS at");
    return createRemoteJWKSet(url, {
      timeoutDuration: timeoutMs,
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
      cacheMaxAge: options.jwksMaxAgeMs ?? 600_000,
      [customFetch]: fetchFunction,
    });
  };

  return {
    async verify(token, resource) {
      // Discovered once; a failed discovery is tried again on the next token.
      keys ??= keySet().catch((error: unknown) => {
        keys = undefined;
        throw error;
      });
      const jwks = await keys;
      let payload: JWTPayload;
      let typ: string | undefined;
      try {
        const verified = await jwtVerify(token, jwks, {
          issuer,
          algorithms,
          clockTolerance: toleranceSec,
          requiredClaims: ["exp", "iss", "aud"],
        });
        payload = verified.payload;
        typ = verified.protectedHeader.typ;
      } catch (error) {
        throw refusal(error);
      }
      // Compared here, not by jose: RFC 3986 normalisation makes `http://host/` and
      // `http://host` one resource (resource-id.ts).
      if (!audienceNames(payload.aud, normalResourceId(resource) ?? resource)) {
        throw new InvalidTokenError("the token's audience is not this resource");
      }
      if (typ === undefined || !types.has(normalizeType(typ))) {
        throw new InvalidTokenError("the token is not a JWT access token (typ)");
      }
      // jose checks `iat` only with maxTokenAge; a token "issued" in the future is forged or
      // from a broken clock, and would outlive its stated lifetime.
      if (issuedInFuture(payload.iat, toleranceSec)) {
        throw new InvalidTokenError("the token's iat claim is in the future");
      }
      const cnf = payload.cnf as { jkt?: unknown } | undefined;
      return {
        issuer,
        subject: optionalString(payload.sub),
        clientId: optionalString(payload.client_id) ?? optionalString(payload.azp),
        scopes: withImpliedScopes(scopesFrom(payload), implies),
        exp: payload.exp,
        jkt: optionalString(cnf?.jkt),
        claims: payload,
      } satisfies VerifiedToken;
    },
  };
}

/** Whether a (numeric, as jose has checked) `iat` lies beyond the clock tolerance from now. */
export function issuedInFuture(iat: number | undefined, toleranceSec: number): boolean {
  return iat !== undefined && iat > Date.now() / 1000 + toleranceSec;
}

/** RFC 8725 §3.11 media type comparison: case-insensitive, "application/" optional. */
function normalizeType(type: string): string {
  const lower = type.toLowerCase();
  return lower.startsWith("application/") ? lower.slice("application/".length) : lower;
}

/** A jose failure as the refusal a client sees; failures to fetch keys are not the token's. */
function refusal(error: unknown): unknown {
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return error;
  if (!(error instanceof errors.JOSEError)) return error;
  if (error instanceof errors.JWTExpired) return new InvalidTokenError("the token has expired");
  if (error instanceof errors.JWTClaimValidationFailed) {
    const what =
      error.claim === "aud"
        ? "audience is not this resource"
        : `${error.claim} claim is not acceptable`;
    return new InvalidTokenError(`the token's ${what}`);
  }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey
  ) {
    return new InvalidTokenError("the token's signature does not verify");
  }
  return new InvalidTokenError("the token is not a valid JWT access token");
}
