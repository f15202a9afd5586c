/**
 * Resource identifiers (RFC 8707, RFC 9728 `resource`) compared the way RFC 3986 §6.2.2-6.2.3
 * says two URIs are the same: clients and authorization servers write the same identifier in
 * different ways (mcp-remote sends the origin as `http://host:port/`, a server configured with
 * `http://host:port` would refuse that token on a string comparison).
 */

/** Characters RFC 3986 §2.3 calls unreserved: their percent-encoding means the same as them. */
const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * The normal form of a resource identifier, or undefined when it is not an absolute URL. The
 * WHATWG parser lowercases scheme and host, drops the default port, makes an empty path "/"
 * and removes dot segments; what is left is percent-encoding: hex digits uppercased, unreserved
 * characters decoded.
 */
export function normalResourceId(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const href = new URL(value).href;
  return href.includes("%")
    ? href.replace(/%([0-9A-Fa-f]{2})/g, (_whole, hex: string) => {
        const char = String.fromCharCode(Number.parseInt(hex, 16));
        return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
      })
    : href;
}

/**
 * Whether a token's `aud` (a string or an array of them) names the resource `normalResource`
 * (already in normal form).
 */
export function audienceNames(aud: unknown, normalResource: string): boolean {
  const audiences = Array.isArray(aud) ? aud : [aud];
  return audiences.some(
    (audience) => typeof audience === "string" && normalResourceId(audience) === normalResource,
  );
}
