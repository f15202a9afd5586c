/**
 * New tokens by the grant an OAuthClient is configured with: authorization code (with its
 * redirect handler), client credentials, device code, JWT bearer (with the configured
 * assertion) or enterprise-managed (token exchange at the enterprise IdP, then JWT bearer).
 */
import type * as oauth from "oauth4webapi";
import { AuthorizationError } from "../transports/http/client/auth.js";
import { type DeviceCodeOptions, deviceCodeGrant } from "./device-grant.js";
import { type EnterpriseOptions, identityAssertionGrant } from "./enterprise.js";
import {
  authorizationCodeGrant,
  clientCredentialsGrant,
  type GrantContext,
  jwtBearerGrant,
} from "./grants.js";
import { grantOf, type OAuthClientOptions } from "./oauth-options.js";
import type { RedirectHandler } from "./redirect.js";

/** `asked`: the scopes to ask for. checkOptions made sure each grant has what it needs. */
export async function grantRequest(
  context: GrantContext,
  options: OAuthClientOptions,
  asked: readonly string[],
): Promise<oauth.TokenEndpointResponse> {
  switch (grantOf(options)) {
    case "client_credentials":
      return clientCredentialsGrant(context, asked);
    case "jwt_bearer":
      return jwtBearerGrant(context, await assertion(options), asked);
    case "device_code":
      return deviceCodeGrant(context, asked, options.device as DeviceCodeOptions);
    case "enterprise": {
      const grant = await identityAssertionGrant(
        context.http,
        options.enterprise as EnterpriseOptions,
        context.as.issuer,
        context.resource,
        asked,
      );
      return jwtBearerGrant(context, grant, asked);
    }
    default:
      return authorizationCodeGrant(context, options.redirect as RedirectHandler, asked);
  }
}

/** The JWT bearer assertion, asked afresh; what went wrong says no more than an error code. */
async function assertion(options: OAuthClientOptions): Promise<string> {
  const source = options.assertion as NonNullable<OAuthClientOptions["assertion"]>;
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
