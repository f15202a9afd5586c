import type { OptionKind, ParsedArgs } from "./args.js";
import { ENV_NAME, readEnvFile } from "./env-file.js";
import { UsageError } from "./errors.js";

/**
 * What a stdio server is started with beyond the allowlist of src/transports/stdio/env.ts:
 * `--env-file` files in order, then `-e/--env` (later wins), or everything with --inherit-env.
 */
export const ENV_OPTIONS: Record<string, OptionKind> = {
  env: "list",
  "env-file": "list",
  "inherit-env": "flag",
};

export interface ChildEnvSettings {
  /** Variables added on top of the inherited ones. */
  env: Record<string, string>;
  inheritEnv: boolean;
}

export const ENV_USAGE = `Environment of a stdio server (by default only PATH, HOME, USER, LOGNAME, SHELL, TERM,
LANG, LC_ALL, LC_CTYPE, TMPDIR, TZ are passed on; on Windows their equivalents):
  -e, --env KEY=VALUE      set a variable (repeatable); --env KEY passes on our own KEY
  --env-file <file>        KEY=VALUE lines (# comments, quotes, export prefix); repeatable
  --inherit-env            pass on our whole environment (secrets included)`;

export function childEnvSettings(
  options: ParsedArgs["options"],
  source: NodeJS.ProcessEnv = process.env,
): ChildEnvSettings {
  const env: Record<string, string> = {};
  for (const file of (options["env-file"] as string[] | undefined) ?? []) {
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

/** True when any environment option was given (they mean nothing to a URL target). */
export function hasEnvOptions(options: ParsedArgs["options"]): boolean {
  return (
    options.env !== undefined ||
    options["env-file"] !== undefined ||
    options["inherit-env"] !== undefined
  );
}
