import { UsageError } from "./errors.js";

/** How a verb's option is read: a switch, a value, or a value that may be repeated. */
export type OptionKind = "flag" | "value" | "list";

export interface ParsedArgs {
  /** Switches are `true`, values strings, repeatable values arrays (absent when not given). */
  options: Record<string, boolean | string | string[] | undefined>;
  /** Arguments before `--` that are not options, in order. */
  positionals: string[];
  /**
   * Everything after the first `--` (a stdio server's command line), if there was one; with
   * `commandAtFirstWord`, everything from the first word that is not an option on.
   */
  command: string[] | undefined;
}

interface ParseSettings {
  /**
   * The first word that is not an option starts the command, `--` or not (`tap --out f node
   * server.js --port 3`): for a verb that takes no positionals and sits inside other tools'
   * command lines, where a `--` may be awkward or eaten. The command's own options stay its own.
   */
  commandAtFirstWord?: boolean;
}

/** Short spellings of long options, honoured where the verb knows the long one. */
const SHORT_OPTIONS: Record<string, string> = { "-e": "env" };

/**
 * Reads `[options] [positionals] [-- command…]`. Options may come anywhere before `--`, as
 * `--name value` or `--name=value`; everything after `--` is left untouched, since it is the
 * command line of a server and its options are its own.
 */
export function parseArgs(
  argv: readonly string[],
  spec: Record<string, OptionKind>,
  settings: ParseSettings = {},
): ParsedArgs {
  const options: ParsedArgs["options"] = {};
  const positionals: string[] = [];
  const separator = argv.indexOf("--");
  const own = separator === -1 ? argv : argv.slice(0, separator);
  let command = separator === -1 ? undefined : argv.slice(separator + 1);
  for (let i = 0; i < own.length; i++) {
    let arg = own[i]!;
    // The one short option, spelled like docker's and mcp-proxy's: -e KEY=VALUE.
    const long = SHORT_OPTIONS[arg];
    if (long !== undefined && spec[long] !== undefined) arg = `--${long}`;
    if (!arg.startsWith("--") || arg === "-") {
      if (arg.startsWith("-") && arg.length > 1 && arg !== "-") {
        throw new UsageError(`unknown option ${arg}`);
      }
      if (settings.commandAtFirstWord) {
        // `own` is a prefix of argv: the rest of argv, a `--` in it included, is the command's.
        command = argv.slice(i);
        break;
      }
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf("=");
    const name = equals === -1 ? arg.slice(2) : arg.slice(2, equals);
    const kind = spec[name];
    if (kind === undefined) throw new UsageError(`unknown option --${name}`);
    if (kind === "flag") {
      if (equals !== -1) throw new UsageError(`--${name} takes no value`);
      options[name] = true;
      continue;
    }
    let value: string;
    if (equals !== -1) value = arg.slice(equals + 1);
    else {
      const next = own[i + 1];
      if (next === undefined) throw new UsageError(`--${name} needs a value`);
      value = next;
      i++;
    }
    if (kind === "list") {
      const list = (options[name] as string[] | undefined) ?? [];
      list.push(value);
      options[name] = list;
    } else {
      options[name] = value;
    }
  }
  if (command !== undefined && command.length === 0) {
    throw new UsageError("nothing after --: give the command that starts the server");
  }
  return { options, positionals, command };
}

/** Parses a JSON object argument (tool arguments, request params). */
export function parseJsonObject(
  text: string | undefined,
  what: string,
): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${what} must be a JSON object, like '{"key":"value"}'`);
  }
  return value as Record<string, unknown>;
}
