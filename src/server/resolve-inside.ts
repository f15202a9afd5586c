/**
 * resolveInside, on Node (and Bun, Deno): a resource template variable as a file path inside a
 * root directory. The web build swaps this file for resolve-inside.web.ts: no file system there.
 */
import { resolve, sep } from "node:path";
import { refused, safePathSegments } from "./safe-paths.js";

/**
 * The absolute path of `relative` (a variable value or its segments) inside `root`; throws
 * -32602 when it would leave `root` (see safePathSegments). Symbolic links inside `root` are
 * not followed here: a handler that must not follow them out checks `fs.realpath` as well.
 */
export function resolveInside(root: string, relative: string | readonly string[]): string {
  const base = resolve(root);
  const target = resolve(base, ...safePathSegments(relative));
  // Belt and braces: whatever the segments were, the result must still be under root.
  if (target !== base && !target.startsWith(base.endsWith(sep) ? base : base + sep)) {
    throw refused("leaves the root directory");
  }
  return target;
}
