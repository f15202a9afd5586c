/**
 * Everything an OAuthClient must know before it can ask for tokens, found afresh after a 401
 * (the MCP server may have moved to another authorization server): the server's Protected
 * Resource Metadata (or, for a 2025-03-26 server without any, the legacy defaults), its
 * authorization server's metadata, and who this client is there.
 */
import { clientIdentity } from "./client-identity.js";
import {
  discoverAuthorizationServer,
  discoverResource,
  findResourceMetadata,
  type ResourceMetadata,
} from "./discovery.js";
import type { GrantContext } from "./grants.js";
import type { AuthHttp } from "./http.js";
import { legacyAuthorizationServer } from "./legacy-discovery.js";
import { identityRequest, type OAuthClientOptions } from "./oauth-options.js";
import type { TokenStore } from "./token-store.js";

export interface Session {
  readonly metadata: ResourceMetadata;
  readonly grant: GrantContext;
}

/** `hinted`: the challenge's `resource_metadata` URL, which must then be there. */
export async function discoverSession(
  http: AuthHttp,
  store: TokenStore,
  options: OAuthClientOptions,
  endpoint: URL,
  hinted: string | undefined,
): Promise<Session> {
  const found =
    // A hinted PRM must be there; without a hint, its absence means a 2025-03-26 server.
    hinted === undefined
      ? await findResourceMetadata(http, endpoint, undefined)
      : await discoverResource(http, endpoint, hinted);
  const { metadata, as } =
    "tried" in found
      ? await legacyAuthorizationServer(http, endpoint)
      : {
          metadata: found,
          // RFC 9728 §7.6 leaves the choice to the client: the first one listed.
          as: await discoverAuthorizationServer(http, found.authorizationServers[0] as string),
        };
  const identity = await clientIdentity(http, store, as, options, identityRequest(options));
  return { metadata, grant: { http, as, identity, resource: metadata.resource } };
}
