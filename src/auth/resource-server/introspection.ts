/**
 * Opaque access tokens checked by RFC 7662 introspection at the authorization server (the
 * endpoint from its metadata, this resource server authenticating as a client). An inactive
 * token, one from another issuer or one whose audience does not name this resource is refused.
 */
import * as oauth from "oauth4webapi";
import { discoverAuthorizationServer } from "../discovery.js";
import { AuthHttp } from "../http.js";
import { checkServerUrl } from "./config-checks.js";
import { InvalidTokenError, optionalString, scopesFrom } from "./principal.js";
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
  /** How long an answer is trusted (ms): revocation is seen after at most this. Default 60 s. */
  maxCacheMs?: number;
  /** Timeout of each request (ms). Default 5 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function tokenIntrospection(options: IntrospectionOptions): TokenVerifier {
  const { issuer } = options;
  checkServerUrl("tokenIntrospection: issuer", issuer);
  if (options.endpoint !== undefined)
    checkServerUrl("tokenIntrospection: endpoint", options.endpoint);
  const http = new AuthHttp(options.fetch, options.timeoutMs ?? 5_000);
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

  return {
    maxCacheMs: options.maxCacheMs ?? 60_000,
    async verify(token, resource) {
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
      if (answer.exp !== undefined && answer.exp * 1000 <= Date.now()) {
        throw new InvalidTokenError("the token has expired");
      }
      const audiences = answer.aud === undefined ? [] : [answer.aud].flat();
      if (
        !audiences.includes(resource) &&
        (answer.aud !== undefined || options.requireAudience !== false)
      ) {
        throw new InvalidTokenError("the token's audience is not this resource");
      }
      const cnf = answer.cnf as { jkt?: unknown } | undefined;
      return {
        issuer,
        subject: answer.sub,
        clientId: answer.client_id,
        scopes: scopesFrom(answer),
        exp: answer.exp,
        jkt: optionalString(cnf?.jkt),
        claims: answer,
      };
    },
  };
}
