import { printableLine } from "../../text/printable.js";
import { DEFAULT_CONFIG, readServerConfig, type ServerEntry } from "../connect/config-file.js";
import { CONFIG_USAGE } from "../connect/config-target.js";
import { describeField, describeReference, referencesIn } from "../connect/config-variables.js";
import { parseArgs } from "../core/args.js";
import { UsageError } from "../core/errors.js";
import { writeJson, writeOut } from "../core/terminal.js";

const SERVERS_USAGE = `Usage: mcpwire servers [--config <file>] [--json]

Lists the servers of an MCP config file (default ./.mcp.json): Claude Desktop's, Cursor's and
Claude Code's {"mcpServers": {...}} or VS Code's {"servers": {...}}. Each line: name, kind
(stdio, http, sse) and what it starts or reaches; env and header names only, never their values.
Under an entry, where each variable goes: "header Authorization <- $API_TOKEN, sent to <url>".
A variable of your environment leaves in a remote entry's URL or headers only with
--send-env NAME or your yes on a terminal.
Use one with any verb: mcpwire call mytool '{}' --config ./mcp.json --server local

${CONFIG_USAGE}
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
  const { entries } = readServerConfig(path);
  if (parsed.options.json === true) {
    writeJson(entries.map(summary));
    return 0;
  }
  if (entries.length === 0) {
    writeOut(`no servers in ${printableLine(path)}`);
    return 0;
  }
  const summaries = entries.map(summary);
  const width = Math.max(...summaries.map((item) => printableLine(item.name).length));
  const lines = summaries.flatMap(({ name, kind, target, names, values }) => {
    const extra =
      names.length > 0 ? `  (${kind === "stdio" ? "env" : "headers"}: ${names.join(", ")})` : "";
    const row = `${printableLine(name).padEnd(width)}  ${kind.padEnd(5)}  ${printableLine(target + extra)}`;
    const indent = " ".repeat(width + 9);
    return [
      row,
      ...values.map(
        (value) =>
          indent +
          printableLine(
            `${value.into} <- ${value.from}${value.sentTo ? `, sent to ${value.sentTo}` : ""}`,
          ),
      ),
    ];
  });
  writeOut(lines.join("\n"));
  return 0;
}

/** Where one variable's value goes. */
interface ValueRoute {
  /** `env TOKEN`, `header Authorization`, `the URL`, `args` */
  into: string;
  /** `$NAME`, `input "id"`, `${workspaceFolder}` */
  from: string;
  /** A remote entry's URL as written: the value leaves the machine for it. */
  sentTo?: string;
}

function summary(entry: ServerEntry): {
  name: string;
  kind: string;
  target: string;
  names: string[];
  values: ValueRoute[];
} {
  const values = referencesIn(entry).map(({ field, reference, remote }) => ({
    into: describeField(field),
    from: describeReference(reference),
    ...(remote && entry.kind !== "stdio" ? { sentTo: entry.url } : {}),
  }));
  if (entry.kind === "stdio") {
    const target = [entry.command, ...entry.args].join(" ");
    return { name: entry.name, kind: "stdio", target, names: Object.keys(entry.env), values };
  }
  return {
    name: entry.name,
    kind: entry.kind,
    target: entry.url,
    names: Object.keys(entry.headers),
    values,
  };
}
