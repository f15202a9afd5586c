/**
 * Finding the authorization server of an MCP server (2026-07-28 basic/authorization/
 * authorization-server-discovery.mdx): the Protected Resource Metadata (RFC 9728) from the
 * challenge's `resource_metadata`, else the path-aware well-known URL, else the root one; then
 * the authorization server's metadata (RFC 8414 / OpenID Connect Discovery) in the spec's URL
 * order, whose `issuer` must be identical to the issuer we asked for.
 */
import * as oauth from "oauth4webapi";
import { printableLine } from "../text/printable.js";
import { AuthorizationError } from "../transports/http/client/auth.js";
import { type AuthHttp, jsonObjectIn } from "./http.js";

export interface ResourceMetadata {
  /** The resource identifier: the value of `resource` on authorization and token requests. */
  readonly resource: string;
  readonly authorizationServers: readonly string[];
  readonly scopesSupported?: readonly string[];
  /** It names DPoP (`dpop_signing_alg_values_supported` or `dpop_bound_access_tokens_required`). */
  readonly dpop?: boolean;
  /** Where it was found. */
  readonly url: string;
}

/** The PRM URLs to try, in the spec's order. */
export function resourceMetadataUrls(endpoint: URL, hinted: string | undefined): URL[] {
  if (hinted !== undefined) {
    try {
      return [new URL(hinted)];
    } catch {
      throw new AuthorizationError("discovery", "the server's resource_metadata is not a URL");
    }
  }
  const urls: URL[] = [];
  const path = endpoint.pathname.replace(/\/+$/, "");
  if (path !== "") urls.push(new URL(`/.well-known/oauth-protected-resource${path}`, endpoint));
  urls.push(new URL("/.well-known/oauth-protected-resource", endpoint));
  return urls;
}

/**
 * Whether a PRM `resource` identifies the server at `endpoint`: same origin (scheme, host and
 * port, compared canonically) and a path equal to the endpoint's or a segment prefix of it (the
 * root document of a server names its origin). No fragment.
 */
export function resourceIdentifies(resource: string, endpoint: URL): boolean {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return false;
  }
  if (url.hash !== "" || resource.includes("#")) return false;
  if (url.origin !== endpoint.origin) return false;
  const own = url.pathname.replace(/\/+$/, "");
  const target = endpoint.pathname.replace(/\/+$/, "");
  return own === target || own === "" || target.startsWith(`${own}/`);
}

export async function discoverResource(
  http: AuthHttp,
  endpoint: URL,
  hinted: string | undefined,
): Promise<ResourceMetadata> {
  const found = await findResourceMetadata(http, endpoint, hinted);
  if ("tried" in found) {
    throw new AuthorizationError(
      "discovery",
      `no protected resource metadata found (tried ${found.tried})`,
    );
  }
  return found;
}

/** The PRM, or what was tried when no URL had one (a server of the 2025-03-26 revision). */
export async function findResourceMetadata(
  http: AuthHttp,
  endpoint: URL,
  hinted: string | undefined,
): Promise<ResourceMetadata | { tried: string }> {
  const found = await firstDocument(
    http,
    resourceMetadataUrls(endpoint, hinted),
    "the protected resource metadata at",
  );
  if ("tried" in found) return found;
  return checkResourceMetadata(found.body, found.url, endpoint);
}

/**
 * The first of `urls` that answers 200 with a JSON object, in order; or what was tried. A URL
 * that fails or answers another status is passed over; one that answers 200 with something
 * else than a JSON object ends the search with an error.
 */
async function firstDocument(
  http: AuthHttp,
  urls: readonly URL[],
  what: string,
): Promise<{ url: URL; body: Record<string, unknown> } | { tried: string }> {
  const tried: string[] = [];
  for (const url of urls) {
    const response = await http.get(url, "discovery", what).catch((error: unknown) => {
      if (error instanceof AuthorizationError) throw error;
      return undefined;
    });
    if (response?.status !== 200) {
      await response?.body?.cancel().catch(() => {});
      tried.push(`${url.href} (${response ? `HTTP ${response.status}` : "unreachable"})`);
      continue;
    }
    const body = await jsonObjectIn(response);
    if (!body) throw new AuthorizationError("discovery", `${url.href} is not a JSON object`);
    return { url, body };
  }
  return { tried: tried.join(", ") };
}

function checkResourceMetadata(
  body: Record<string, unknown>,
  url: URL,
  endpoint: URL,
): ResourceMetadata {
  const { resource, authorization_servers: servers, scopes_supported: scopes } = body;
  const dpop =
    body.dpop_bound_access_tokens_required === true ||
    (Array.isArray(body.dpop_signing_alg_values_supported) &&
      body.dpop_signing_alg_values_supported.length > 0);
  if (typeof resource !== "string") {
    throw new AuthorizationError("discovery", `${url.href} names no resource`);
  }
  if (!resourceIdentifies(resource, endpoint)) {
    // RFC 9728 §3.3 / §7.3: metadata for another resource must not be used (a server could
    // otherwise have us fetch tokens meant for somebody else).
    throw new AuthorizationError(
      "discovery",
      printableLine(
        `the protected resource metadata at ${url.href} is for another resource: it names ${resource.slice(0, 200)}, and this server is ${endpoint.origin}${endpoint.pathname}`,
      ),
    );
  }
  if (
    !Array.isArray(servers) ||
    servers.length === 0 ||
    !servers.every((s) => typeof s === "string")
  ) {
    throw new AuthorizationError("discovery", `${url.href} names no authorization server`);
  }
  const scopesSupported = Array.isArray(scopes)
    ? scopes.filter((s): s is string => typeof s === "string")
    : undefined;
  return {
    resource,
    authorizationServers: servers as string[],
    ...(scopesSupported ? { scopesSupported } : {}),
    ...(dpop ? { dpop } : {}),
    url: url.href,
  };
}

/** The AS metadata URLs to try for an issuer, in the spec's order. */
export function authorizationServerMetadataUrls(issuer: URL): URL[] {
  const path = issuer.pathname.replace(/\/+$/, "");
  const origin = issuer.origin;
  if (path === "") {
    return [
      new URL(`${origin}/.well-known/oauth-authorization-server`),
      new URL(`${origin}/.well-known/openid-configuration`),
    ];
  }
  return [
    new URL(`${origin}/.well-known/oauth-authorization-server${path}`),
    new URL(`${origin}/.well-known/openid-configuration${path}`),
    new URL(`${origin}${path}/.well-known/openid-configuration`),
  ];
}

export async function discoverAuthorizationServer(
  http: AuthHttp,
  issuer: string,
): Promise<oauth.AuthorizationServer> {
  const found = await findAuthorizationServer(http, issuer);
  if ("tried" in found) {
    throw new AuthorizationError(
      "discovery",
      `no authorization server metadata for ${issuer} (tried ${found.tried})`,
    );
  }
  return found;
}

/** The issuer's metadata, or what was tried when no URL had any. */
export async function findAuthorizationServer(
  http: AuthHttp,
  issuer: string,
): Promise<oauth.AuthorizationServer | { tried: string }> {
  let issuerUrl: URL;
  try {
    issuerUrl = new URL(issuer);
  } catch {
    throw new AuthorizationError("discovery", "the authorization server is not a URL");
  }
  const found = await firstDocument(
    http,
    authorizationServerMetadataUrls(issuerUrl),
    "the authorization server",
  );
  if ("tried" in found) return found;
  const { url, body } = found;
  // RFC 8414 §3.3: identical, character for character (oauth4webapi compares parsed URLs,
  // which forgives a trailing slash; the spec does not).
  if (body.issuer !== issuer) {
    throw new AuthorizationError(
      "discovery",
      `the metadata at ${url.href} names another issuer than ${issuer}`,
    );
  }
  try {
    return await oauth.processDiscoveryResponse(issuerUrl, Response.json(body));
  } catch (error) {
    throw new AuthorizationError(
      "discovery",
      `the metadata at ${url.href} is unusable: ${error instanceof Error ? error.message : "invalid"}`,
    );
  }
}
