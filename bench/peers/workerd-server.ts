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
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleFile } from "../../test/helpers/web-bundle.js";

/** The workerd binary of the `workerd` package (the one Miniflare runs in the suite). */
const workerdBinary: string = createRequire(import.meta.url)("workerd").default;

const WORKERS: Record<string, string> = {
  bare: "../workers/bare-worker.js",
  mcpwire: "../workers/echo-worker.js",
};

/** workerd takes a fixed address; a port the kernel just handed out is free to give it. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Resolves once something accepts connections on the port (workerd prints nothing when ready). */
async function accepting(port: number, exited: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (exited()) throw new Error("workerd exited before listening");
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => resolve(true));
      socket.once("error", () => resolve(false));
    }).catch(() => false);
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`workerd did not listen on ${port}`);
}

const argv = process.argv.slice(2);
const worker = WORKERS[argv[0] ?? ""];
if (!worker) {
  process.stderr.write("usage: workerd-server bare|mcpwire [--port N]\n");
  process.exit(2);
}
const portIndex = argv.indexOf("--port");
const port = portIndex >= 0 ? Number(argv[portIndex + 1]) : await freePort();
const bundled = await bundleFile(fileURLToPath(new URL(worker, import.meta.url)));
if (bundled.unresolved.length > 0) throw new Error(`unresolved: ${bundled.unresolved.join(", ")}`);
const dir = mkdtempSync(join(tmpdir(), "mcpwire-bench-workerd-"));
writeFileSync(join(dir, "worker.js"), bundled.code);
writeFileSync(
  join(dir, "config.capnp"),
  `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .main)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const main :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed "worker.js")],
  compatibilityDate = "2025-09-01",
);
`,
);
const workerd = spawn(workerdBinary, ["serve", join(dir, "config.capnp")], {
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
