/**
 * The JavaScript runtimes besides Node that the suite runs mcpwire on, each installed from npm as
 * a devDependency (`bun`, `deno`: their packages carry the linux x64 binaries), and how each runs
 * a compiled script. Deno runs with the permissions a loopback server needs (the network on
 * 127.0.0.1; reading examples/skills, which the everything example serves, and the two
 * environment variables its YAML parser checks), so any other file read or environment lookup
 * in the library shows up as a failure.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface Runtime {
  name: "bun" | "deno";
  /** The binary under node_modules/.bin. */
  command: string;
  /** Arguments that run `script` with `scriptArgs`. */
  args(script: string, scriptArgs: string[]): string[];
}

function binary(name: string): string {
  const path = join(ROOT, "node_modules", ".bin", name);
  if (!existsSync(path)) {
    throw new Error(`${path} is missing: run npm install (${name} is a devDependency)`);
  }
  return path;
}

export const RUNTIMES: readonly Runtime[] = [
  { name: "bun", command: binary("bun"), args: (script, rest) => [script, ...rest] },
  {
    name: "deno",
    command: binary("deno"),
    args: (script, rest) => [
      "run",
      "--no-prompt",
      "--allow-net=127.0.0.1",
      `--allow-read=${join(ROOT, "examples", "skills")}`,
      // The yaml package (SKILL.md frontmatter) looks these two debug switches up on each parse.
      "--allow-env=LOG_TOKENS,LOG_STREAM",
      script,
      ...rest,
    ],
  },
];
