import type { OptionKind, ParsedArgs } from "../core/args.js";
import { UsageError } from "../core/errors.js";
import { ENV_NAME, readEnvFile } from "./env-file.js";

/**
 * What a stdio server is started with beyond the allowlist of src/transports/stdio/env.ts:
 * `--env-from` files in order, then `-e/--env` (later wins), or everything with --inherit-env.
 */
export const ENV_OPTIONS: Record<string, OptionKind> = {
  env: "list",
  "env-from": "list",
  "inherit-env": "flag",
};

interface ChildEnvSettings {
  /** Variables added on top of the inherited ones. */
  env: Record<string, string>;
  inheritEnv: boolean;
}

export const ENV_USAGE = `Environment of a stdio server (by default only PATH, HOME, USER, LOGNAME, SHELL, TERM,
LANG, LC_ALL, LC_CTYPE, TMPDIR, TZ are passed on; on Windows their equivalents):
  -e, --env KEY=VALUE      set a variable (repeatable); --env KEY passes on our own KEY
  --env-from <file>        KEY=VALUE lines (# comments, quotes, export prefix); repeatable
  --inherit-env            pass on our whole environment (secrets included)`;

export function childEnvSettings(
  options: ParsedArgs["options"],
  source: NodeJS.ProcessEnv = process.env,
): ChildEnvSettings {
  const env: Record<string, string> = {};
  for (const file of (options["env-from"] as string[] | undefined) ?? []) {
    Object.assign(env, readEnvFile(file));
  }
  for (const entry of (options.env as string[] | undefined) ?? []) {
    const equals = entry.indexOf("=");
    const name = equals === -1 ? entry : entry.slice(0, equals);
    // Never quote the entry: the part after = is the secret the user is passing on.
    if (!ENV_NAME.test(name)) {
      throw new UsageError("--env needs KEY=VALUE or KEY, the name letters, digits and _");
    }
    if (equals !== -1) {
      env[name] = entry.slice(equals + 1);
      continue;
    }
    const value = source[name];
    if (value === undefined) {
      throw new UsageError(`--env ${name}: ${name} is not set in this environment`);
    }
    env[name] = value;
  }
  return { env, inheritEnv: options["inherit-env"] === true };
}

/**
 * Refuses Node's own `--env-file` (and `--env-file-if-exists`) among our options. Node 20 and 22
 * look for them anywhere before `--`, after the script's name too, in npx's process and in
 * ours: a missing file ends the command with Node's exit 9 before we run, and a `NODE_OPTIONS`
 * line in the file runs code in npx and in mcpwire. Hence `--env-from`; what Node already did
 * with the file cannot be undone here, but the user learns which option to use.
 */
export function refuseNodeEnvFile(argv: readonly string[]): void {
  const separator = argv.indexOf("--");
  const own = separator === -1 ? argv : argv.slice(0, separator);
  const given = own.find((arg) => /^--env-file(-if-exists)?(=|$)/.test(arg));
  if (given === undefined) return;
  throw new UsageError(
    `${given.split("=")[0]} is Node's own option (Node reads the file itself, in npx and in ` +
      "mcpwire, before mcpwire runs): give a stdio server's variables with --env-from <file>",
  );
}

/** True when any environment option was given (they mean nothing to a URL target). */
export function hasEnvOptions(options: ParsedArgs["options"]): boolean {
  return (
    options.env !== undefined ||
    options["env-from"] !== undefined ||
    options["inherit-env"] !== undefined
  );
}
