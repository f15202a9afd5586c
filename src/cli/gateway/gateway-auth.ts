/**
 * The gateway's opt-in bearer token: where it comes from (--token, --token-file, or the
 * MCPWIRE_GATEWAY_TOKEN environment variable; argv is visible to every user in `ps`, a file or
 * the environment is not) and how a request's Authorization header is checked against it.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { ResourceGuard } from "../../transports/http/resource-guard.js";
import { readSecretFile } from "../connect/http-auth.js";
import { UsageError } from "../core/errors.js";

/** The token the gateway requires, or undefined when it requires none. */
export function gatewayToken(
  token: string | undefined,
  tokenFile: string | undefined,
): string | undefined {
  if (token !== undefined && tokenFile !== undefined) {
    throw new UsageError("give the token once: --token or --token-file, not both");
  }
  let value = token;
  // Trimmed: the trailing newline an editor or `echo` leaves is not part of the secret.
  if (tokenFile !== undefined) value = readSecretFile(tokenFile, "--token-file");
  value ??= process.env.MCPWIRE_GATEWAY_TOKEN;
  // An empty token would let "Authorization: Bearer " in.
  if (value === "") throw new UsageError("the gateway token is empty");
  return value;
}

/**
 * A request passes with "Authorization: Bearer <token>"; the scheme name is case-insensitive
 * (RFC 7235 §2.1), the token is not. Anything else gets 401. Both sides are hashed first so
 * the comparison takes the same time whatever the length of what was sent.
 */
export function bearerCheck(token: string): (request: Request) => unknown {
  const expected = digest(token);
  return (request) => {
    const header = request.headers.get("authorization") ?? "";
    const space = header.indexOf(" ");
    const scheme = space === -1 ? "" : header.slice(0, space);
    const given = scheme.toLowerCase() === "bearer" ? header.slice(space + 1).trimStart() : "";
    if (given !== "" && timingSafeEqual(digest(given), expected)) return { gateway: true };
    return new Response("Unauthorized", {
      status: 401,
      headers: {
        "WWW-Authenticate": 'Bearer realm="mcpwire-gateway"',
        "Content-Type": "text/plain",
      },
    });
  };
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/**
 * The guard for --auth-issuer: the gateway as an OAuth protected resource taking that issuer's
 * JWT access tokens. mcpwire/auth (and jose) load only then. Beyond loopback the resource URL
 * must be given: the address the gateway binds (0.0.0.0, say) is not what clients reach.
 * `scopes` (--auth-scopes) are needed by every request and advertised in the challenge and the
 * metadata; with none, a spec-following client asks for no scope, which many authorization
 * servers refuse: `warn` says so once.
 */
export async function gatewayGuard(
  settings: { issuer?: string; resource?: string; scopes?: string; loopback: boolean },
  warn: (line: string) => void,
): Promise<ResourceGuard | undefined> {
  const { issuer, resource, loopback } = settings;
  if (issuer === undefined) {
    if (resource !== undefined) throw new UsageError("--auth-resource needs --auth-issuer");
    if (settings.scopes !== undefined) throw new UsageError("--auth-scopes needs --auth-issuer");
    return undefined;
  }
  if (resource === undefined && !loopback) {
    throw new UsageError(
      "--auth-issuer beyond loopback needs --auth-resource <the URL clients use, e.g. https://mcp.example.com/mcp>",
    );
  }
  const scopes = (settings.scopes ?? "").split(" ").filter((scope) => scope !== "");
  if (settings.scopes !== undefined && scopes.length === 0) {
    throw new UsageError('--auth-scopes needs at least one scope, e.g. --auth-scopes "mcp:tools"');
  }
  const { protectResource } = await import("../../auth/index.js");
  let guard: ResourceGuard;
  try {
    guard = protectResource({
      issuer,
      ...(resource !== undefined ? { resource } : {}),
      ...(scopes.length > 0 ? { requiredScopes: scopes } : {}),
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (scopes.length === 0) warn(NO_SCOPES_WARNING);
  return guard;
}

export const NO_SCOPES_WARNING =
  "mcpwire gateway: warning: --auth-issuer without --auth-scopes advertises no scope: clients will ask for none, and many authorization servers refuse that (access_denied)";
