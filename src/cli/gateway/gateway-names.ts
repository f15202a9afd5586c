/**
 * Names on the gateway's aggregated endpoint: a tool or prompt of server `files` named
 * `read` is `files_read` there, and a resource URI carries the server after its scheme, so a
 * read finds its way back: `test://static` → `test://files/static`, `ui://app/x.html` →
 * `ui://files/app/x.html` (still `ui:`, as MCP Apps hosts expect), `urn:isbn:1` →
 * `urn:files:isbn:1`. The server's part is percent-encoded, so any entry name round-trips.
 */

/** What the tool-name rules allow (2025-11-25 and 2026-07-28 tools.mdx: 1-128 of these). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function namespacedName(server: string, name: string, separator: string): string {
  return `${server}${separator}${name}`;
}

/** Whether a name keeps to the tool-name rules (a SHOULD: reported, not refused). */
export function followsToolNameRules(name: string): boolean {
  return TOOL_NAME.test(name);
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):(\/\/)?/;

export function namespacedUri(server: string, uri: string): string {
  const match = SCHEME.exec(uri);
  if (!match) return uri; // not a URI at all: left as it is, and reads of it find no server
  const rest = uri.slice(match[0].length);
  const tag = encodeURIComponent(server);
  return match[2] ? `${match[1]}://${tag}/${rest}` : `${match[1]}:${tag}:${rest}`;
}

/** The server and its own URI, from an aggregated one; undefined when it names none. */
export function splitUri(uri: string): { server: string; uri: string } | undefined {
  const match = SCHEME.exec(uri);
  if (!match) return undefined;
  const rest = uri.slice(match[0].length);
  const end = rest.indexOf(match[2] ? "/" : ":");
  if (end <= 0) return undefined;
  let server: string;
  try {
    server = decodeURIComponent(rest.slice(0, end));
  } catch {
    return undefined;
  }
  const own = rest.slice(end + 1);
  return { server, uri: match[2] ? `${match[1]}://${own}` : `${match[1]}:${own}` };
}
