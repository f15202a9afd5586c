/**
 * The environment a stdio server is launched with. By default a child sees only a short list of
 * variables it needs to find programs and behave like a normal process, not the parent's secrets
 * (API keys, tokens) that happen to live in process.env.
 */

/** Inherited on POSIX systems, when present. */
export const POSIX_ENV_ALLOWLIST: readonly string[] = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TMPDIR",
  "TZ",
];

/** Inherited on Windows, when present. */
export const WINDOWS_ENV_ALLOWLIST: readonly string[] = [
  "APPDATA",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PATH",
  "PATHEXT",
  "PROCESSOR_ARCHITECTURE",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "USERNAME",
  "USERPROFILE",
  "COMSPEC",
  "PROGRAMFILES",
];

export interface ChildEnvironmentOptions {
  /** Variables added on top of the inherited ones (they win). */
  env?: Record<string, string>;
  /** Copy all of `source` instead of the allowlist. */
  inheritEnv?: boolean;
  /** Defaults to process.platform. */
  platform?: NodeJS.Platform;
  /** Defaults to process.env. */
  source?: NodeJS.ProcessEnv;
}

/** The allowlisted variables of `source` that are set to something safe to pass on. */
export function defaultEnvironment(
  source: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const names = platform === "win32" ? WINDOWS_ENV_ALLOWLIST : POSIX_ENV_ALLOWLIST;
  const result: Record<string, string> = {};
  for (const name of names) {
    // On Windows process.env looks names up case-insensitively, so "Path" is found as "PATH".
    const value = source[name];
    // A value starting with "()" is a bash exported function (the Shellshock vector): never
    // worth forwarding to a server.
    if (value === undefined || value.startsWith("()")) continue;
    result[name] = value;
  }
  return result;
}

/** The complete environment for a child: inherited variables plus the caller's additions. */
export function childEnvironment(options: ChildEnvironmentOptions = {}): Record<string, string> {
  const source = options.source ?? process.env;
  let base: Record<string, string>;
  if (options.inheritEnv) {
    base = {};
    for (const [name, value] of Object.entries(source)) {
      if (value !== undefined) base[name] = value;
    }
  } else {
    base = defaultEnvironment(source, options.platform);
  }
  return { ...base, ...options.env };
}
