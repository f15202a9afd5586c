/** A protected mcpwire server for the resource server tests, and raw requests against it. */
import {
  type AccessTokenPrincipal,
  type ProtectResourceOptions,
  protectResource,
} from "../../src/auth/index.js";
import { McpServer } from "../../src/server/index.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";
import type { HttpHandlerOptions } from "../../src/transports/http/server.js";
import { post, request } from "../transports/http/http-helpers.js";

export interface Protected extends ServedHttp {
  mcp: McpServer;
  /** The principal each handler call saw. */
  seen: AccessTokenPrincipal[];
}

export function buildProtectedServer(): { mcp: McpServer; seen: AccessTokenPrincipal[] } {
  const seen: AccessTokenPrincipal[] = [];
  const mcp = new McpServer({
    serverInfo: { name: "protected", version: "1.0.0" },
    onError: () => {},
  });
  mcp.tool({ name: "whoami", inputSchema: { type: "object" } }, (_args, context) => {
    const principal = context.principal as AccessTokenPrincipal;
    seen.push(principal);
    const { subject, clientId, scopes, expiresAt } = principal;
    return JSON.stringify({ subject, clientId, scopes, expiresAt });
  });
  mcp.tool({ name: "write_file", inputSchema: { type: "object" } }, () => "written", {
    scopes: ["files:read", "files:write"],
  });
  return { mcp, seen };
}

export async function startProtected(
  guard: ProtectResourceOptions,
  http: HttpHandlerOptions = {},
): Promise<Protected> {
  const { mcp, seen } = buildProtectedServer();
  const served = await serveHttp(mcp, { ...http, auth: protectResource(guard) });
  return { ...served, mcp, seen };
}

/** A modern tools/call with `authorization` as the Authorization header (none when undefined). */
export function callTool(
  url: string,
  name: string,
  authorization: string | undefined,
  extra: Record<string, string | null> = {},
): Promise<Response> {
  const headers: Record<string, string | null> = { ...extra };
  if (authorization !== undefined) headers.Authorization = authorization;
  return post(url, request("tools/call", { name, arguments: {} }), headers);
}

/** The parameters of a single Bearer challenge. */
export function challengeOf(response: Response): Record<string, string> {
  const header = response.headers.get("www-authenticate") ?? "";
  const match = /^Bearer (.*)$/.exec(header);
  if (!match) throw new Error(`not a Bearer challenge: ${header}`);
  const params: Record<string, string> = {};
  for (const [, name, value] of match[1]!.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)) {
    params[name!] = value!.replace(/\\(.)/g, "$1");
  }
  return params;
}

export function metadataUrlOf(endpoint: string): string {
  const url = new URL(endpoint);
  return `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`;
}
