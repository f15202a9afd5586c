/**
 * Everything an OAuthClient must know before it can ask for tokens, found afresh after a 401
 * (the MCP server may have moved to another authorization server): the server's Protected
 * Resource Metadata (or, for a 2025-03-26 server without any, the legacy defaults) and its
 * authorization server's metadata. Who this client is there depends on what it asks for: a new
 * authorization may register a client, a refresh only ever uses the one the tokens belong to.
 */
import type * as oauth from "oauth4webapi";
import { AuthorizationError } from "../transports/http/client/auth.js";
import {
  type ClientIdentity,
  type ClientIdentityOptions,
  chooseIssuer,
  clientIdentity,
  knownClientIdentity,
} from "./client-identity.js";
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
  readonly http: AuthHttp;
  readonly metadata: ResourceMetadata;
  readonly as: oauth.AuthorizationServer;
}

/** `hinted`: the challenge's `resource_metadata` URL, which must then be there. */
export async function discoverSession(
  http: AuthHttp,
  endpoint: URL,
  hinted: string | undefined,
  identity: ClientIdentityOptions,
): Promise<Session> {
  const found =
    // A hinted PRM must be there; without a hint, its absence means a 2025-03-26 server.
    hinted === undefined
      ? await findResourceMetadata(http, endpoint, undefined)
      : await discoverResource(http, endpoint, hinted);
  if ("tried" in found) {
    // The server's origin is its authorization server: a bound client checks it first.
    await chooseIssuer(identity, [endpoint.origin]);
    return { http, ...(await legacyAuthorizationServer(http, endpoint)) };
  }
  // RFC 9728 §7.6 leaves the choice to the client: the first one listed that a pre-registered
  // client may use, chosen before any of them hears from us.
  const issuer = await chooseIssuer(identity, found.authorizationServers);
  return { http, metadata: found, as: await discoverAuthorizationServer(http, issuer) };
}

/** Who we are for a new authorization: registered there first when we are nobody yet. */
export function authorizingIdentity(
  session: Session,
  store: TokenStore,
  options: OAuthClientOptions,
): Promise<ClientIdentity> {
  return clientIdentity(session.http, store, session.as, options, identityRequest(options));
}

/**
 * Who the tokens to refresh were issued to: the client the options give or the one stored for
 * the issuer. Never a new registration: the refresh token belongs to its own client, so a new
 * one could not use it and would only be left behind. With none known, the person logs in again.
 */
export async function refreshingIdentity(
  session: Session,
  store: TokenStore,
  options: OAuthClientOptions,
  endpoint: URL,
): Promise<ClientIdentity> {
  const known = await knownClientIdentity(store, session.as, options);
  if (known === undefined) throw new UnknownRefreshClient(endpoint, session.as.issuer);
  return known;
}

/** No client the tokens were issued to is known: nothing was sent, and the tokens stay. */
export class UnknownRefreshClient extends AuthorizationError {
  constructor(endpoint: URL, issuer: string) {
    super(
      "refresh",
      `the client the tokens for ${endpoint.href} were issued to is not known (none stored for ${issuer}, none given): run mcpwire auth login ${endpoint.href}`,
    );
  }
}

/** What a grant at the session's authorization server needs, as `identity`. */
export function grantContext(session: Session, identity: ClientIdentity): GrantContext {
  const { http, as, metadata } = session;
  return { http, as, identity, resource: metadata.resource };
}
