/**
 * Which addresses the OAuth client may reach for a given MCP server (issue 32 B1, SSRF): the
 * server names the URLs (its resource metadata, its authorization servers, their endpoints), so
 * a server on the internet could otherwise make the client send GETs and credentialed POSTs to
 * the user's own network (a router, a cloud metadata service, a local admin port). Loopback,
 * private, link-local and the other special-purpose ranges are reachable only when the MCP
 * server itself is on one of them; names are checked where they are resolved, at connect time,
 * so a name that answers differently the second time (DNS rebinding) gains nothing.
 */
import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { defaultLookup } from "./dns-lookup.js";
import { isIP, isPublicAddress } from "./ip-scope.js";

export { defaultLookup, isPublicAddress };

/** A URL's host without IPv6 brackets or a final dot. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
}

/** Hosts that are loopback by name alone (RFC 6761): never asked of a resolver. */
function loopbackName(host: string): boolean {
  const lower = host.toLowerCase();
  return lower === "localhost" || lower.endsWith(".localhost");
}

/**
 * Whether the host can be judged without a resolver, and how: "public" or "not public" for an
 * address or a loopback name, undefined for any other name.
 */
export function literalScope(host: string): "public" | "not public" | undefined {
  if (loopbackName(host)) return "not public";
  if (isIP(host) === 0) return undefined;
  return isPublicAddress(host) ? "public" : "not public";
}

/** Every address `host` resolves to ([] when it does not). */
export function resolveAll(lookup: LookupFunction, host: string): Promise<LookupAddress[]> {
  return new Promise((resolve) => {
    lookup(host, { all: true }, (error, addresses) => {
      resolve(error || !Array.isArray(addresses) ? [] : addresses);
    });
  });
}

/**
 * Whether the MCP server at `endpoint` is on this machine or a private network: a loopback name
 * or a non-public address, or a name all of whose addresses are non-public.
 */
export async function isLocalEndpoint(endpoint: URL, lookup: LookupFunction): Promise<boolean> {
  const host = bareHost(endpoint);
  const literal = literalScope(host);
  if (literal !== undefined) return literal === "not public";
  const addresses = await resolveAll(lookup, host);
  return addresses.length > 0 && addresses.every((a) => !isPublicAddress(a.address));
}

/** A connection refused because the name resolved to a non-public address. */
export class NonPublicAddressError extends Error {
  override name = "NonPublicAddressError";
  readonly code = "ERR_NON_PUBLIC_ADDRESS";
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, which is not a public address`);
  }
}

/**
 * A resolver for node's sockets that fails when any address of the name is not public (the
 * socket would try them in turn, so one is enough to refuse).
 */
export function publicOnlyLookup(lookup: LookupFunction = defaultLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, found) => {
      const addresses = Array.isArray(found) ? found : [];
      const refused = addresses.find((a) => !isPublicAddress(a.address));
      if (error) {
        callback(error, "", 4);
      } else if (refused !== undefined || addresses.length === 0) {
        callback(new NonPublicAddressError(hostname, refused?.address ?? "no address"), "", 4);
      } else if (options.all === true) {
        callback(null, addresses);
      } else {
        const [first] = addresses as [LookupAddress];
        callback(null, first.address, first.family);
      }
    });
  };
}
