/**
 * Enterprise-managed authorization (the MCP ext-auth extension, SEP-990): the user's identity
 * provider, not the MCP server's authorization server, decides. Step one, here: RFC 8693 token
 * exchange at the enterprise IdP, trading the user's ID token for an Identity Assertion JWT
 * Authorization Grant (ID-JAG) addressed to the MCP server's authorization server and naming
 * the MCP resource. Step two is the JWT bearer grant (RFC 7523) with that ID-JAG as assertion,
 * at the MCP server's authorization server (grants.ts).
 */
import * as oauth from "oauth4webapi";
import { AuthorizationError } from "../transports/http/client/auth.js";
import { clientIdentity } from "./client-identity.js";
import { authorizationFailure } from "./describe.js";
import { discoverAuthorizationServer } from "./discovery.js";
import type { AuthHttp } from "./http.js";
import { InMemoryTokenStore } from "./token-store.js";

export interface EnterpriseOptions {
  /** The enterprise identity provider's issuer (its metadata is discovered from it). */
  idpIssuer: string;
  /** This client's id at the identity provider. */
  idpClientId: string;
  /** Its secret there, if it has one (else it authenticates as a public client). */
  idpClientSecret?: string;
  /** The user's ID token from the identity provider (from the user's single sign-on). */
  idToken: string | (() => string | Promise<string>);
}

const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag";

/** The ID-JAG for `resource` at the authorization server `audience`. */
export async function identityAssertionGrant(
  http: AuthHttp,
  options: EnterpriseOptions,
  audience: string,
  resource: string,
  scopes: readonly string[],
): Promise<string> {
  const idp = await discoverAuthorizationServer(http, options.idpIssuer);
  const identity = await clientIdentity(
    http,
    // The identity provider's client is always pre-registered: nothing is ever stored.
    new InMemoryTokenStore(),
    options.idpClientSecret === undefined
      ? { ...idp, token_endpoint_auth_methods_supported: ["none"] }
      : idp,
    {
      clientId: options.idpClientId,
      ...(options.idpClientSecret === undefined ? {} : { clientSecret: options.idpClientSecret }),
    },
    { redirectUris: [], grantTypes: [TOKEN_EXCHANGE_GRANT] },
  );
  const subjectToken =
    typeof options.idToken === "string" ? options.idToken : await options.idToken();
  const parameters: Record<string, string> = {
    requested_token_type: ID_JAG_TYPE,
    audience,
    resource,
    subject_token: subjectToken,
    subject_token_type: ID_TOKEN_TYPE,
  };
  if (scopes.length > 0) parameters.scope = scopes.join(" ");
  let answer: oauth.TokenEndpointResponse;
  try {
    const response = await oauth.genericTokenEndpointRequest(
      idp,
      identity.client,
      identity.authentication,
      TOKEN_EXCHANGE_GRANT,
      parameters,
      // The user's ID token (and the client's secret there) go to the provider's origin alone.
      http.credentialOptions(
        idp.token_endpoint,
        idp.issuer,
        "token",
        "the identity provider's token endpoint",
      ),
    );
    // RFC 8693 §2.2.1: an issued token that is not an access token has token_type N_A.
    answer = await oauth.processGenericTokenEndpointResponse(idp, identity.client, response, {
      recognizedTokenTypes: { n_a: () => {} },
    });
  } catch (error) {
    throw authorizationFailure("token", error);
  }
  if (answer.issued_token_type !== ID_JAG_TYPE) {
    throw new AuthorizationError(
      "token",
      "the identity provider's token exchange did not issue an identity assertion grant (ID-JAG)",
    );
  }
  return answer.access_token;
}
