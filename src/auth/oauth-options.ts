/**
 * What an OAuthClient is configured with, and what the options alone decide: whether they make
 * sense together (checked when the client is made), what a registration asks for, and when to
 * ask for `offline_access`.
 */
import type { LookupFunction } from "node:net";
import type * as oauth from "oauth4webapi";
import type { ClientIdentityOptions, IdentityRequest } from "./client-identity.js";
import { DEVICE_CODE_GRANT, type DeviceCodeOptions } from "./device-grant.js";
import type { EnterpriseOptions } from "./enterprise.js";
import { JWT_BEARER_GRANT } from "./grants.js";
import type { RedirectHandler } from "./redirect.js";
import type { TokenStore } from "./token-store.js";
import { splitScopes } from "./www-authenticate.js";

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
  /**
   * The fetch for authorization server requests (and the headless redirect). Default: node:http
   * with `lookup`, every connection's address checked as it is resolved. With your own fetch,
   * names are resolved and checked just before each request instead (a name that answers
   * differently the second time gets through: check addresses in your fetch's connector).
   */
  fetch?: typeof fetch;
  /**
   * How names are resolved (dns.lookup's signature). Default dns.lookup. Loopback, private,
   * link-local and other reserved addresses are reached only when the MCP server itself is on
   * one (or the origin is `clientIssuer`'s or the enterprise identity provider's).
   */
  lookup?: LookupFunction;
  /** Per request to an authorization server. Default 30 s. */
  timeoutMs?: number;
  /** Refresh this long before a token expires. Default 30 s. */
  refreshLeewayMs?: number;
  /**
   * Before sending a person to authorize as a registration kept in the store, ask the token
   * endpoint whether it still knows the client (one token request with a code that cannot be
   * valid; `invalid_client`: register again). For an interactive login; default false.
   */
  checkStoredRegistration?: boolean;
  /** Step-up authorizations for one client, at most. Default 3. */
  maxStepUps?: number;
  /** The clock (tests). Default Date.now. */
  now?: () => number;
}

/** The grants where a person authorizes, and a refresh token saves asking again. */
const USER_GRANTS: readonly OAuthGrant[] = ["authorization_code", "device_code"];

export function grantOf(options: OAuthClientOptions): OAuthGrant {
  return options.grant ?? "authorization_code";
}

/** Throws a TypeError when a grant lacks what it needs: a mistake in code, not at run time. */
export function checkOptions(options: OAuthClientOptions): void {
  const grant = grantOf(options);
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
    throw new TypeError("OAuthClient: the device_code grant needs `device` (how to show the code)");
  }
  if (
    (options.clientSecret !== undefined ||
      options.privateKey !== undefined ||
      grant === "jwt_bearer") &&
    options.clientIssuer === undefined
  ) {
    throw new TypeError(
      "OAuthClient: a client secret, private key or JWT bearer assertion needs clientIssuer, the authorization server it belongs to (or a function such as firstIssuer())",
    );
  }
  if (grant === "jwt_bearer" && options.assertion === undefined) {
    throw new TypeError("OAuthClient: the jwt_bearer grant needs an assertion");
  }
  if (grant === "enterprise" && (options.enterprise === undefined || !options.clientId)) {
    throw new TypeError("OAuthClient: the enterprise grant needs `enterprise` and a clientId");
  }
}

/** What a dynamic registration asks for: the redirect URI and the grants this client uses. */
export function identityRequest(options: OAuthClientOptions): IdentityRequest {
  const grant = grantOf(options);
  return {
    redirectUris: options.redirect ? [options.redirect.redirectUri] : [],
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

/** SEP-2207: `offline_access` only when the authorization server lists it. */
export function withOfflineAccess(
  options: OAuthClientOptions,
  as: oauth.AuthorizationServer,
  scopes: readonly string[],
): readonly string[] {
  if (
    options.offlineAccess === false ||
    !USER_GRANTS.includes(grantOf(options)) ||
    scopes.length === 0 ||
    scopes.includes("offline_access") ||
    !as.scopes_supported?.includes("offline_access")
  ) {
    return scopes;
  }
  return [...scopes, "offline_access"];
}

/** Scopes from a space-separated string (a convenience for options). */
export function scopesOf(scope: string | undefined): string[] {
  return scope === undefined ? [] : splitScopes(scope);
}
