/**
 * Discovery as the 2025-03-26 revision had it, for servers that publish no Protected Resource
 * Metadata: the MCP server's origin (its URL without the path, the "authorization base URL")
 * is the authorization server; its RFC 8414 metadata is used when it has some, else the default
 * endpoints there: /authorize, /token, /register. Only reached when the server's challenge named
 * no `resource_metadata` and none of the well-known PRM URLs answered. Credentials never leave
 * the MCP server's own origin this way.
 */
import type * as oauth from "oauth4webapi";
import { findAuthorizationServer, type ResourceMetadata } from "./discovery.js";
import type { AuthHttp } from "./http.js";

export async function legacyAuthorizationServer(
  http: AuthHttp,
  endpoint: URL,
): Promise<{ metadata: ResourceMetadata; as: oauth.AuthorizationServer }> {
  const issuer = endpoint.origin;
  const metadata: ResourceMetadata = {
    resource: `${endpoint.origin}${endpoint.pathname}`,
    authorizationServers: [issuer],
    url: endpoint.href,
  };
  const found = await findAuthorizationServer(http, issuer);
  if (!("tried" in found)) return { metadata, as: found };
  return {
    metadata,
    as: {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      registration_endpoint: `${issuer}/register`,
      // The revision required PKCE with S256 of every client; its servers support it.
      code_challenge_methods_supported: ["S256"],
    },
  };
}
