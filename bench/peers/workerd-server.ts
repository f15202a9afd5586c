/**
 * A bench Worker in workerd, as test/worker/worker.test.ts runs examples/worker: bundled under
 * the `workerd`/`worker` conditions (test/helpers/web-bundle.ts) and served by Miniflare on
 * 127.0.0.1.
 *
 *   node dist/bench/peers/workerd-server.js bare|mcpwire [--port N]
 *
 * `bare` is workers/bare-worker.ts (the limit), `mcpwire` workers/echo-worker.ts. Prints
 * `listening <url> pid <workerd pid>`: the requests are served by the workerd process Miniflare
 * spawns, not by this one, so that is the process whose CPU and RSS the bench reads.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { bundleFile } from "../../test/helpers/web-bundle.js";

const WORKERS: Record<string, string> = {
  bare: "../workers/bare-worker.js",
  mcpwire: "../workers/echo-worker.js",
};

/** The workerd child Miniflare spawned (a direct child of this process, named `workerd`). */
function workerdPid(): number {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const command = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (command === "workerd" && parent === process.pid) return Number(entry);
    } catch {}
  }
  throw new Error("no workerd child found");
}

const argv = process.argv.slice(2);
const worker = WORKERS[argv[0] ?? ""];
if (!worker) {
  process.stderr.write("usage: workerd-server bare|mcpwire [--port N]\n");
  process.exit(2);
}
const portIndex = argv.indexOf("--port");
const bundled = await bundleFile(fileURLToPath(new URL(worker, import.meta.url)));
if (bundled.unresolved.length > 0) throw new Error(`unresolved: ${bundled.unresolved.join(", ")}`);
const miniflare = new Miniflare({
  modules: true,
  script: bundled.code,
  compatibilityDate: "2025-09-01",
  host: "127.0.0.1",
  port: portIndex >= 0 ? Number(argv[portIndex + 1]) : 0,
  // Off: its entry worker would wrap every response to log it, which a deployed Worker does not.
  logRequests: false,
});
const url = new URL("/mcp", await miniflare.ready).href;
process.stdout.write(`listening ${url} pid ${workerdPid()}\n`);
// Miniflare's own SIGTERM handler SIGKILLs workerd and exits at once, without reaping it: the
// zombie then outlives this process (a trial's leftover). Ours waits until workerd has exited.
process.removeAllListeners("SIGTERM");
process.once("SIGTERM", () => void miniflare.dispose().then(() => process.exit(0)));
