import { readFileSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { isPlainObject } from "../../jsonrpc/errors.js";
import { printableLine } from "../../text/printable.js";
import { CliError, UsageError } from "../core/errors.js";

/**
 * Server entries from the config files MCP hosts use: `{"mcpServers": {name: entry}}` (Claude
 * Desktop, Cursor, Claude Code's .mcp.json) or `{"servers": {name: entry}}` (VS Code, with its
 * `"inputs"`). An entry is `command`/`args`/`env`/`cwd` for a stdio server or `url`/`headers`
 * (with `type` "http" or "sse") for a remote one. Entries are read as written: their `${…}`
 * variables are expanded only for the entry a command uses (config-variables.ts), so an unset
 * variable in another entry breaks nothing.
 */
/**
 * An entry's `"tools"`: what the gateway offers of its tools. `allow`/`deny` are globs on the
 * server's names, `rename` maps a server's name to the offered one, `descriptions` a server's
 * name to the description offered instead. Hosts ignore the key.
 */
export interface ToolRules {
  allow?: readonly string[];
  deny?: readonly string[];
  rename?: Readonly<Record<string, string>>;
  descriptions?: Readonly<Record<string, string>>;
}

export type ServerEntry = (
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
      url: string;
      headers: Record<string, string>;
    }
) & { tools?: ToolRules };

/** A VS Code `inputs` declaration: what `${input:id}` asks for. */
export interface InputDeclaration {
  id: string;
  description: string | undefined;
  /** Typed without echo when asked on a terminal. */
  password: boolean;
  /** For `pickString`: the values allowed. */
  options: string[] | undefined;
  default: string | undefined;
}

export interface ServerConfig {
  /** The file as the user named it (for messages). */
  path: string;
  entries: ServerEntry[];
  inputs: Map<string, InputDeclaration>;
  /** The file's folder: a relative `cwd` starts here. */
  folder: string;
  /** `${workspaceFolder}`: the file's folder, or the one above a `.vscode` folder. */
  workspaceFolder: string;
}

/** The file used when --server is given without --config. */
export const DEFAULT_CONFIG = ".mcp.json";

/** Reads every entry of a config file, unexpanded; a malformed one is a usage error. */
export function readServerConfig(path: string): ServerConfig {
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
  const entries = Object.entries(servers).map(([name, entry]) =>
    readEntry(name, entry, (what) => {
      throw new UsageError(`${shown}: server ${JSON.stringify(printableLine(name))}: ${what}`);
    }),
  );
  const folder = dirname(resolve(path));
  return {
    path,
    entries,
    inputs: readInputs((document as Record<string, unknown>).inputs, shown),
    folder,
    workspaceFolder: basename(folder) === ".vscode" ? dirname(folder) : folder,
  };
}

function readEntry(name: string, entry: unknown, fail: (what: string) => never): ServerEntry {
  if (!isPlainObject(entry)) return fail("must be an object");
  const tools = entry.tools === undefined ? {} : { tools: readToolRules(entry.tools, fail) };
  return { ...readServer(name, entry, fail), ...tools };
}

function readToolRules(value: unknown, fail: (what: string) => never): ToolRules {
  if (!isPlainObject(value)) return fail('"tools" must be an object');
  const globs = (field: "allow" | "deny") => {
    const list = value[field];
    if (list === undefined) return {};
    if (!Array.isArray(list) || !list.every((glob) => typeof glob === "string" && glob !== "")) {
      return fail(`"tools.${field}" must be an array of non-empty strings`);
    }
    return { [field]: list as string[] };
  };
  const known = new Set(["allow", "deny", "rename", "descriptions"]);
  for (const key of Object.keys(value)) {
    if (!known.has(key))
      fail(`unknown "tools.${printableLine(key)}" (allow, deny, rename, descriptions)`);
  }
  const rename = stringMap(value.rename, "tools.rename", fail);
  const targets = Object.values(rename);
  const twice = targets.find((target, index) => targets.indexOf(target) !== index);
  if (twice !== undefined) fail(`"tools.rename" gives two tools the name ${printableLine(twice)}`);
  return {
    ...globs("allow"),
    ...globs("deny"),
    rename,
    descriptions: stringMap(value.descriptions, "tools.descriptions", fail),
  };
}

function readServer(
  name: string,
  entry: Record<string, unknown>,
  fail: (what: string) => never,
): ServerEntry {
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
      command: entry.command as string,
      args: args as string[],
      env: stringMap(entry.env, "env", fail),
      cwd: entry.cwd as string | undefined,
    };
  }
  if (typeof entry.url !== "string") {
    return fail('needs "command" (a stdio server) or "url" (a remote one)');
  }
  if (
    type !== undefined &&
    !["http", "sse", "streamable-http", "streamableHttp"].includes(type as string)
  ) {
    fail(`unknown "type" ${JSON.stringify(printableLine(String(type)))}: use stdio, http or sse`);
  }
  return {
    name,
    kind: type === "sse" ? "sse" : "http",
    url: entry.url,
    headers: stringMap(entry.headers, "headers", fail),
  };
}

function stringMap(
  value: unknown,
  field: string,
  fail: (what: string) => never,
): Record<string, string> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) return fail(`"${field}" must be an object of strings`);
  const result: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    // Never quote the value: env and header values are where the secrets live.
    if (typeof item !== "string") fail(`"${field}.${printableLine(key)}" must be a string`);
    result[key] = item as string;
  }
  return result;
}

/** VS Code's `"inputs": [{ "id", "type", "description", "password", "options", "default" }]`. */
function readInputs(value: unknown, shown: string): Map<string, InputDeclaration> {
  const inputs = new Map<string, InputDeclaration>();
  if (value === undefined) return inputs;
  if (!Array.isArray(value)) throw new UsageError(`${shown}: "inputs" must be an array`);
  for (const item of value) {
    if (!isPlainObject(item) || typeof item.id !== "string") {
      throw new UsageError(`${shown}: each of "inputs" needs a string "id"`);
    }
    const options = Array.isArray(item.options)
      ? item.options.flatMap((option) =>
          typeof option === "string"
            ? [option]
            : isPlainObject(option) && typeof option.value === "string"
              ? [option.value]
              : [],
        )
      : undefined;
    inputs.set(item.id, {
      id: item.id,
      description: typeof item.description === "string" ? item.description : undefined,
      password: item.password === true,
      options: item.type === "pickString" ? options : undefined,
      default: typeof item.default === "string" ? item.default : undefined,
    });
  }
  return inputs;
}

/** The entry named `name`, or an error listing the names there are. */
export function findServer(config: ServerConfig, name: string): ServerEntry {
  const found = config.entries.find((entry) => entry.name === name);
  if (found) return found;
  const known = config.entries.map((entry) => printableLine(entry.name)).join(", ");
  throw new UsageError(
    `no server ${JSON.stringify(printableLine(name))} in ${printableLine(config.path)}` +
      (known ? `; it has: ${known}` : "; it has none"),
  );
}
