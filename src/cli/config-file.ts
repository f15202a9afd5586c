import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { isPlainObject } from "../jsonrpc/errors.js";
import { printableLine } from "../text/printable.js";
import { CliError, UsageError } from "./errors.js";

/**
 * Server entries from the config files MCP hosts use: `{"mcpServers": {name: entry}}` (Claude
 * Desktop, Cursor, Claude Code's .mcp.json) or `{"servers": {name: entry}}` (VS Code). An entry
 * is `command`/`args`/`env`/`cwd` for a stdio server or `url`/`headers` (with `type` "http" or
 * "sse") for a remote one. `${NAME}`, `${env:NAME}` and `${NAME:-default}` in args, env, url and
 * headers are taken from our environment, as the hosts do.
 */
export type ServerEntry =
  | {
      name: string;
      kind: "stdio";
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd: string | undefined;
    }
  | {
      name: string;
      kind: "http" | "sse";
      url: URL;
      /** The URL as the file has it (its ${…} unexpanded when listing). */
      urlText: string;
      headers: Record<string, string>;
    };

/** The file used when --server is given without --config. */
export const DEFAULT_CONFIG = ".mcp.json";

/**
 * Reads every entry of a config file. `source` fills in `${…}` variables; null leaves them
 * as written (for listing, which then neither fails on an unset one nor shows a secret).
 */
export function readServerConfig(
  path: string,
  source: NodeJS.ProcessEnv | null = process.env,
): ServerEntry[] {
  const shown = printableLine(path);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new CliError(`cannot read config file ${shown} (${reason})`, 2);
  }
  let document: unknown;
  try {
    document = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new UsageError(`${shown}: not valid JSON: ${printableLine((error as Error).message)}`);
  }
  const servers = isPlainObject(document) ? (document.mcpServers ?? document.servers) : undefined;
  if (!isPlainObject(servers)) {
    throw new UsageError(
      `${shown}: expected an object with "mcpServers" (or VS Code's "servers") mapping names to servers`,
    );
  }
  const base = dirname(resolve(path));
  return Object.entries(servers).map(([name, entry]) =>
    readEntry(
      name,
      entry,
      (what) => {
        throw new UsageError(`${shown}: server ${JSON.stringify(printableLine(name))}: ${what}`);
      },
      base,
      source,
    ),
  );
}

function readEntry(
  name: string,
  entry: unknown,
  fail: (what: string) => never,
  base: string,
  source: NodeJS.ProcessEnv | null,
): ServerEntry {
  if (!isPlainObject(entry)) return fail("must be an object");
  const expand = (text: string, field: string) =>
    source === null ? text : expandVariables(text, source, field, fail);
  const type = entry.type;
  if (type !== undefined && typeof type !== "string") fail('"type" must be a string');
  if (entry.command !== undefined || type === "stdio") {
    if (typeof entry.command !== "string" || entry.command === "") {
      fail('"command" must be a non-empty string');
    }
    const args = entry.args ?? [];
    if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) {
      fail('"args" must be an array of strings');
    }
    if (entry.cwd !== undefined && typeof entry.cwd !== "string") fail('"cwd" must be a string');
    return {
      name,
      kind: "stdio",
      command: expand(entry.command as string, "command"),
      args: (args as string[]).map((arg) => expand(arg, "args")),
      env: stringMap(entry.env, "env", fail, expand),
      cwd: entry.cwd === undefined ? undefined : resolve(base, expand(entry.cwd as string, "cwd")),
    };
  }
  if (typeof entry.url !== "string") {
    return fail('needs "command" (a stdio server) or "url" (a remote one)');
  }
  const kind = type === "sse" ? "sse" : "http";
  if (
    type !== undefined &&
    !["http", "sse", "streamable-http", "streamableHttp"].includes(type as string)
  ) {
    fail(`unknown "type" ${JSON.stringify(printableLine(String(type)))}: use stdio, http or sse`);
  }
  let url: URL;
  const urlText = expand(entry.url, "url");
  try {
    url = new URL(urlText);
  } catch {
    // Unexpanded (listing), a ${VAR} may stand for the whole URL: show it as written.
    if (source === null) url = new URL("http://unexpanded.invalid/");
    else return fail('"url" is not a valid URL');
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") fail('"url" must be http(s)');
  return { name, kind, url, urlText, headers: stringMap(entry.headers, "headers", fail, expand) };
}

function stringMap(
  value: unknown,
  field: string,
  fail: (what: string) => never,
  expand: (text: string, field: string) => string,
): Record<string, string> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) return fail(`"${field}" must be an object of strings`);
  const result: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    // Never quote the value: env and header values are where the secrets live.
    if (typeof item !== "string") fail(`"${field}.${printableLine(key)}" must be a string`);
    result[key] = expand(item as string, `${field}.${key}`);
  }
  return result;
}

const VARIABLE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

function expandVariables(
  text: string,
  source: NodeJS.ProcessEnv,
  field: string,
  fail: (what: string) => never,
): string {
  return text.replace(VARIABLE, (_match, name: string, fallback: string | undefined) => {
    const value = source[name];
    if (value !== undefined && value !== "") return value;
    if (fallback !== undefined) return fallback;
    return fail(`${printableLine(field)} uses \${${name}}, which is not set in this environment`);
  });
}

/** The entry named `name`, or an error listing the names there are. */
export function findServer(entries: ServerEntry[], name: string, path: string): ServerEntry {
  const found = entries.find((entry) => entry.name === name);
  if (found) return found;
  const known = entries.map((entry) => printableLine(entry.name)).join(", ");
  throw new UsageError(
    `no server ${JSON.stringify(printableLine(name))} in ${printableLine(path)}` +
      (known ? `; it has: ${known}` : "; it has none"),
  );
}
