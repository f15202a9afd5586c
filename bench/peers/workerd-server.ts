/**
 * A bench Worker in workerd, bundled as test/worker/worker.test.ts bundles examples/worker
 * (test/helpers/web-bundle.ts: the `workerd`/`worker` conditions), and served by the workerd
 * binary itself on 127.0.0.1 with a one-service config, as a deployed Worker is: no Miniflare,
 * whose entry worker handles every request too (about as much CPU as the bare Worker's whole
 * request) and so pulled the ratio of the two rows toward 1.
 *
 *   node dist/bench/peers/workerd-server.js bare|mcpwire [--port N]
 *
 * `bare` is workers/bare-worker.ts (the limit), `mcpwire` workers/echo-worker.ts. Prints
 * `listening <url> pid <workerd pid>`: workerd serves the requests, so that is the process whose
 * CPU and RSS the bench reads.
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import {
  accepting,
  freePort,
  prepareWorker,
  WORKER_NAMES,
  workerdBinary,
} from "./workerd-config.js";

const argv = process.argv.slice(2);
if (!WORKER_NAMES.includes(argv[0] ?? "")) {
  process.stderr.write("usage: workerd-server bare|mcpwire [--port N]\n");
  process.exit(2);
}
const portIndex = argv.indexOf("--port");
const port = portIndex >= 0 ? Number(argv[portIndex + 1]) : await freePort();
const { dir, config } = await prepareWorker(argv[0]!, port);
const workerd = spawn(workerdBinary, ["serve", config], {
  stdio: ["ignore", "ignore", "inherit"],
});
let exited = false;
workerd.once("exit", (code) => {
  exited = true;
  rmSync(dir, { recursive: true, force: true });
  process.exit(code ?? 0);
});
await accepting(port, () => exited);
process.stdout.write(`listening http://127.0.0.1:${port}/mcp pid ${workerd.pid}\n`);
// workerd does not stop on SIGTERM (Miniflare kills it too); its exit handler above ends this one.
process.once("SIGTERM", () => workerd.kill("SIGKILL"));
