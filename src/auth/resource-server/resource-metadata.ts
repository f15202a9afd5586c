/**
 * A protected resource's metadata (RFC 9728): the document, where it is served, and the
 * resource of each other path an endpoint serves (the deprecated HTTP+SSE stream beside a
 * Streamable HTTP endpoint).
 */
import type { DpopChecker } from "./dpop.js";

/** The parts of protectResource's options the document says. */
interface MetadataFields {
  metadata?: Record<string, unknown>;
  requiredScopes?: string[];
  scopesSupported?: string[];
  resourceName?: string;
}

export const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/** The metadata document of `resource`, as JSON text. */
export function metadataDocument(
  options: MetadataFields,
  servers: readonly string[],
  dpop: DpopChecker | undefined,
  resource: string,
): string {
  // Clients follow the spec's scope selection: the challenge's scope, else scopes_supported,
  // else none at all (which many authorization servers refuse).
  const scopes = (options.scopesSupported ?? options.requiredScopes)?.filter(
    (scope) => scope !== "offline_access",
  );
  return JSON.stringify({
    ...options.metadata,
    resource,
    authorization_servers: servers,
    bearer_methods_supported: ["header"],
    ...(scopes && scopes.length > 0 ? { scopes_supported: scopes } : {}),
    ...(options.resourceName ? { resource_name: options.resourceName } : {}),
    ...(dpop
      ? {
          dpop_signing_alg_values_supported: dpop.algorithms,
          dpop_bound_access_tokens_required: dpop.required,
        }
      : {}),
  });
}

/**
 * The resource identifier of `path`, served by the same handler as the endpoint whose resource
 * is `resource` (served at `servedPath`, when known): undefined when `resource` already covers
 * it the way clients check it (same origin, its path a prefix of theirs segment by segment, the
 * SDKs' checkResourceAllowed), else the URL of `path` beside the endpoint's. Behind a proxy
 * that adds a prefix (`https://example.com/gw/mcp` for `/mcp`), the prefix is kept; when the
 * served path is not known, the endpoint is taken to be the last segment of the resource.
 */
export function siblingResource(
  resource: string,
  servedPath: string | undefined,
  path: string,
): string | undefined {
  const url = new URL(resource);
  // Compared without trailing slashes: `/mcp/` names the endpoint served at `/mcp`.
  const own = url.pathname.replace(/\/+$/, "");
  const served = servedPath?.replace(/\/+$/, "");
  const prefix =
    served !== undefined && own.endsWith(served)
      ? own.slice(0, own.length - served.length)
      : own.slice(0, own.lastIndexOf("/"));
  const publicPath = `${prefix}${path}`;
  const covering = `${own}/`;
  if (`${publicPath}/`.startsWith(covering)) return undefined;
  url.pathname = publicPath;
  url.search = "";
  return url.href;
}

/** The resource URL, checked: absolute, no fragment (RFC 8707 §2). */
export function resourceUrl(resource: string): URL {
  if (!URL.canParse(resource)) throw new Error("protectResource: resource must be an absolute URL");
  const url = new URL(resource);
  if (url.hash !== "" || resource.includes("#")) {
    throw new Error("protectResource: the resource URL must not have a fragment (RFC 8707)");
  }
  return url;
}
