import { type InspectOptions, inspect } from "node:util";
import { sharedHold } from "./shared-hold.js";

/**
 * The console methods that Node writes to stdout. `table`, `group`, `count`, `time*` and the
 * like print through `this.log` on the same console object, so replacing `log` covers them too;
 * `dir` and `dirxml` are separate bound functions and need their own replacement. `warn`,
 * `error`, `trace` and `assert` already write to stderr and are left alone.
 */
const STDOUT_METHODS = ["log", "info", "debug", "dirxml", "dir"] as const;
type StdoutMethod = (typeof STDOUT_METHODS)[number];

/**
 * Each replacement calls `console.error` when it runs (not a copy taken now), so a logger the
 * application installs on `console.error` also receives what would have gone to stdout, and
 * group indentation stays shared with the real console.
 */
const replacements: Record<StdoutMethod, (...args: unknown[]) => void> = {
  log: (...args) => console.error(...args),
  info: (...args) => console.error(...args),
  debug: (...args) => console.error(...args),
  dirxml: (...args) => console.error(...args),
  dir: (item, options) =>
    console.error(inspect(item, { customInspect: false, ...(options as InspectOptions) })),
};

let originals: Partial<Record<StdoutMethod, unknown>> = {};

/**
 * Sends everything the global console would print on stdout to stderr instead, until the
 * returned function is called. Nested holders share one redirection (the last release restores).
 *
 * Direct `process.stdout.write` calls are the job of stdout-guard.ts, which the stdio server
 * installs beside this redirection.
 */
export const redirectConsoleToStderr: () => () => void = sharedHold(install, uninstall);

function install(): void {
  const target = console as unknown as Record<StdoutMethod, unknown>;
  originals = {};
  for (const method of STDOUT_METHODS) {
    originals[method] = target[method];
    target[method] = replacements[method];
  }
}

function uninstall(): void {
  const target = console as unknown as Record<StdoutMethod, unknown>;
  for (const method of STDOUT_METHODS) {
    // Someone who replaced the method after us keeps their version; theirs may wrap ours, which
    // still lands on stderr, and putting the original back would silently undo their change.
    if (target[method] === replacements[method]) target[method] = originals[method];
  }
  originals = {};
}
