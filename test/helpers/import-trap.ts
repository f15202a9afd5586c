/** Imports modules in a fresh Node whose module resolver runs `trap` (a resolve hook's source). */
import { spawnSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** Runs from the repository root, so "mcpwire/…" resolves to this package's exports. */
export function importWithTrap(trap: string, specifiers: string[]) {
  const code = [
    'import { register } from "node:module";',
    `register("data:text/javascript," + encodeURIComponent(${JSON.stringify(trap)}));`,
    ...specifiers.map((s) => `await import(${JSON.stringify(s)});`),
    'process.stdout.write("imported");',
  ].join("\n");
  return spawnSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60_000,
  });
}
