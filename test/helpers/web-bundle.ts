/**
 * Bundles code that imports mcpwire's subpaths the way a Workers or browser build does: rollup
 * with node-resolve under the `workerd`, `worker` and `browser` export conditions, every
 * dependency inlined. `mcpwire` resolves to this checkout (its package.json exports and
 * dist/pkg, so `npm run build` first) through a symlink in a scratch node_modules.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { nodeResolve } from "@rollup/plugin-node-resolve";
import { rollup } from "rollup";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const WEB_CONDITIONS = ["workerd", "worker", "browser", "import", "module", "default"];
/** What a browser app's bundler (Vite, esbuild with platform=browser) resolves with. */
export const BROWSER_CONDITIONS = ["browser", "import", "module", "default"];

export interface WebBundle {
  code: string;
  /** Imports nothing resolved (bare names such as "crypto" a bundler could not find). */
  unresolved: string[];
}

/**
 * `source` bundled into one ES module. `packageDir` is where "mcpwire" resolves (default this
 * checkout); its dependencies resolve beside it as Node would.
 */
export async function bundleForWeb(
  source: string,
  packageDir = REPO,
  conditions = WEB_CONDITIONS,
): Promise<WebBundle> {
  const scratch = mkdtempSync(join(tmpdir(), "mcpwire-web-"));
  try {
    mkdirSync(join(scratch, "node_modules"));
    symlinkSync(packageDir, join(scratch, "node_modules", "mcpwire"), "dir");
    const entry = join(scratch, "entry.js");
    writeFileSync(entry, source);
    return await bundleFile(entry, conditions);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The module at `entry` and all it imports (resolved from where it lies) as one ES module. */
export async function bundleFile(entry: string, conditions = WEB_CONDITIONS): Promise<WebBundle> {
  const unresolved: string[] = [];
  const bundle = await rollup({
    input: entry,
    plugins: [nodeResolve({ exportConditions: conditions, browser: true, preferBuiltins: false })],
    onwarn(warning) {
      if (warning.code === "UNRESOLVED_IMPORT" && warning.exporter)
        unresolved.push(warning.exporter);
    },
  });
  try {
    const { output } = await bundle.generate({ format: "es", inlineDynamicImports: true });
    return { code: output[0].code, unresolved };
  } finally {
    await bundle.close();
  }
}

/** Every `node:` specifier the code imports or requires, and whether it calls createRequire. */
export function nodeOnlyTraces(code: string): string[] {
  const found = new Set<string>();
  for (const match of code.matchAll(/["'](node:[a-z_/]+)["']/g)) found.add(match[1]!);
  if (/\bcreateRequire\b/.test(code)) found.add("createRequire");
  return [...found].sort();
}
