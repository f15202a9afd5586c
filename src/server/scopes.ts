/**
 * The OAuth scopes a tool, prompt or resource is registered with (the `scopes` option), which an
 * HTTP endpoint protected by mcpwire/auth checks before a request reaches its handler.
 */

/** RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export function scopesOrNone(scopes: readonly string[] | undefined): readonly string[] | undefined {
  return scopes !== undefined && scopes.length > 0 ? scopes : undefined;
}

export function checkScopes(scopes: unknown, where: string): readonly string[] | undefined {
  if (scopes === undefined) return undefined;
  if (
    !Array.isArray(scopes) ||
    !scopes.every((s) => typeof s === "string" && SCOPE_TOKEN.test(s))
  ) {
    throw new Error(`${where}: scopes must be an array of scope tokens (no spaces or quotes)`);
  }
  return scopes.length > 0 ? [...scopes] : undefined;
}
