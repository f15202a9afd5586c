/**
 * mcpwire as a user installs it, without the network: `npm pack` of this checkout (its
 * dist, so build first) unpacked into a scratch node_modules, with the package's dependencies
 * linked from this checkout's node_modules beside it.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { REPO } from "./web-bundle.js";

const run = promisify(execFile);

/** Installs the packed package into `dir`/node_modules/mcpwire; resolves with that path. */
export async function installPacked(dir: string): Promise<string> {
  const modules = join(dir, "node_modules");
  const target = join(modules, "mcpwire");
  mkdirSync(target, { recursive: true });
  const { stdout } = await run(
    process.platform === "win32" ? "npm.cmd" : "npm",
    ["pack", "--ignore-scripts", "--json", "--pack-destination", dir],
    { cwd: REPO, maxBuffer: 64 * 1024 * 1024 },
  );
  const [packed] = JSON.parse(stdout) as [{ filename: string }];
  await run("tar", ["-xzf", join(dir, packed.filename), "-C", target, "--strip-components=1"]);
  const manifest = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  for (const name of Object.keys(manifest.dependencies)) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(REPO, "node_modules", name), join(modules, name), "dir");
  }
  return target;
}
