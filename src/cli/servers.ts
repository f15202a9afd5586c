import { printableLine } from "../text/printable.js";
import { parseArgs } from "./args.js";
import { DEFAULT_CONFIG, readServerConfig, type ServerEntry } from "./config-file.js";
import { UsageError } from "./errors.js";
import { writeJson, writeOut } from "./terminal.js";

export const SERVERS_USAGE = `Usage: mcpwire servers [--config <file>] [--json]

Lists the servers of an MCP config file (default ./.mcp.json): Claude Desktop's, Cursor's and
Claude Code's {"mcpServers": {...}} or VS Code's {"servers": {...}}. Each line: name, kind
(stdio, http, sse) and what it starts or reaches; env and header names only, never their values.
Use one with any verb: mcpwire call mytool '{}' --config ./mcp.json --server local
`;

export async function runServers(argv: readonly string[]): Promise<number> {
  const parsed = parseArgs(argv, { config: "value", json: "flag", help: "flag" });
  if (parsed.options.help === true) {
    writeOut(SERVERS_USAGE);
    return 0;
  }
  if (parsed.positionals.length > 0 || parsed.command !== undefined) {
    throw new UsageError("servers takes no arguments; give the file with --config <file>");
  }
  const path = (parsed.options.config as string | undefined) ?? DEFAULT_CONFIG;
  // Unexpanded: ${TOKEN} is shown as written, not as the secret it stands for.
  const entries = readServerConfig(path, null);
  if (parsed.options.json === true) {
    writeJson(entries.map(summary));
    return 0;
  }
  if (entries.length === 0) {
    writeOut(`no servers in ${printableLine(path)}`);
    return 0;
  }
  const rows = entries.map((entry) => {
    const { name, kind, target, names } = summary(entry);
    const extra =
      names.length > 0 ? `  (${kind === "stdio" ? "env" : "headers"}: ${names.join(", ")})` : "";
    return [printableLine(name), kind, printableLine(target) + extra.replace(/[^\S ]/g, " ")];
  });
  const width = Math.max(...rows.map((row) => row[0]!.length));
  writeOut(
    rows
      .map(([name, kind, target]) => `${name!.padEnd(width)}  ${kind!.padEnd(5)}  ${target}`)
      .join("\n"),
  );
  return 0;
}

function summary(entry: ServerEntry): {
  name: string;
  kind: string;
  target: string;
  names: string[];
} {
  if (entry.kind === "stdio") {
    const target = [entry.command, ...entry.args].join(" ");
    return { name: entry.name, kind: "stdio", target, names: Object.keys(entry.env) };
  }
  return {
    name: entry.name,
    kind: entry.kind,
    target: entry.urlText,
    names: Object.keys(entry.headers),
  };
}
