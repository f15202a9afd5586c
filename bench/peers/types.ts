export type Era = "modern" | "legacy";
/** A client's era: "auto" is mcpwire's own probe (server/discover, then initialize). */
export type ClientEra = Era | "auto";

/** How to launch a stdio server (or an HTTP server that prints `listening <url>`). */
export interface ServerCommand {
  command: string;
  args: string[];
}

/** What every workload needs from a client, whichever library is behind it. */
export interface BenchClient {
  /** Calls the echo tool and returns the text of its first content block. */
  echo(text: string): Promise<string | undefined>;
  /** Lists tools and returns how many there are. */
  listTools(): Promise<number>;
  /** The stdio server's pid, when this client spawned it. */
  serverPid(): number | undefined;
  close(): Promise<void>;
}

/**
 * The environment every bench server gets, the same small set the MCP client libraries pass to
 * stdio servers by default. Inheriting everything would let variables such as
 * NODE_EXTRA_CA_CERTS (tens of ms at startup, several MiB of RSS) skew some rows and not others.
 */
export function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}
