/** Where a socket transport connects or listens: a TCP host and port, or a Unix socket path. */
export type SocketTarget =
  | { kind: "tcp"; host: string; port: number }
  | { kind: "unix"; path: string };

const TCP_PREFIX = "tcp://";
const UNIX_PREFIX = "unix:";

/**
 * Reads `tcp://host:port`, `tcp://[::1]:port`, `unix:/abs/path`, `unix:///abs/path` or
 * `unix:relative/path`. Unix paths are taken literally (no percent-decoding). Port 0 is accepted
 * because it means "any free port" when listening.
 */
export function parseSocketTarget(text: string): SocketTarget {
  const lower = text.slice(0, TCP_PREFIX.length).toLowerCase();
  if (lower.startsWith(TCP_PREFIX)) return parseTcp(text, text.slice(TCP_PREFIX.length));
  if (lower.startsWith(UNIX_PREFIX)) return parseUnix(text, text.slice(UNIX_PREFIX.length));
  throw new Error(
    `unsupported socket address ${JSON.stringify(text)}: expected tcp://host:port or unix:/path`,
  );
}

/** The text form of a target; parseSocketTarget(formatSocketTarget(t)) gives t back. */
export function formatSocketTarget(target: SocketTarget): string {
  if (target.kind === "unix") return `${UNIX_PREFIX}${target.path}`;
  const host = target.host.includes(":") ? `[${target.host}]` : target.host;
  return `${TCP_PREFIX}${host}:${target.port}`;
}

function parseTcp(text: string, rest: string): SocketTarget {
  const fail = (reason: string): never => {
    throw new Error(`invalid TCP address ${JSON.stringify(text)}: ${reason}`);
  };
  // A trailing slash is what people paste from URLs; anything longer is a path we would ignore.
  const authority = rest.endsWith("/") ? rest.slice(0, -1) : rest;
  if (/[/?#@\s]/.test(authority)) fail("only tcp://host:port is allowed (no path, user or query)");

  let host: string;
  let portText: string;
  if (authority.startsWith("[")) {
    const close = authority.indexOf("]");
    if (close === -1) fail("unterminated [IPv6] host");
    host = authority.slice(1, close);
    if (!host.includes(":")) fail("brackets are only for IPv6 addresses");
    if (authority[close + 1] !== ":") fail("missing :port");
    portText = authority.slice(close + 2);
  } else {
    const colon = authority.lastIndexOf(":");
    if (colon === -1) fail("missing :port");
    host = authority.slice(0, colon);
    if (host.includes(":")) fail("write IPv6 hosts in brackets, as tcp://[::1]:port");
    portText = authority.slice(colon + 1);
  }
  if (host === "") fail("missing host");
  if (!/^\d{1,5}$/.test(portText)) fail(`port must be a number, got ${JSON.stringify(portText)}`);
  const port = Number(portText);
  if (port > 65535) fail(`port ${port} is out of range (0-65535)`);
  return { kind: "tcp", host, port };
}

function parseUnix(text: string, rest: string): SocketTarget {
  let path = rest;
  if (rest.startsWith("//")) {
    // unix:///abs/path has an empty authority; unix://name/... would name a host we cannot use.
    if (!rest.startsWith("///")) {
      throw new Error(
        `invalid Unix socket address ${JSON.stringify(text)}: use unix:/abs/path or unix:///abs/path`,
      );
    }
    path = rest.slice(2);
  }
  if (path === "") {
    throw new Error(`invalid Unix socket address ${JSON.stringify(text)}: missing path`);
  }
  if (path.includes("\0")) {
    throw new Error(`invalid Unix socket address ${JSON.stringify(text)}: NUL in path`);
  }
  return { kind: "unix", path };
}
