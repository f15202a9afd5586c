/**
 * A bench Worker ready for the workerd binary: bundled as test/worker/worker.test.ts bundles
 * examples/worker (the `workerd`/`worker` conditions), written beside a one-service config that
 * serves it on 127.0.0.1. Shared by peers/workerd-server.ts (the bench rows) and
 * instructions-workerd.ts (callgrind).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleFile } from "../../test/helpers/web-bundle.js";

/** The workerd binary of the `workerd` package (the one Miniflare runs in the suite). */
export const workerdBinary: string = createRequire(import.meta.url)("workerd").default;

const WORKERS: Record<string, string> = {
  bare: "../workers/bare-worker.js",
  mcpwire: "../workers/echo-worker.js",
};

export const WORKER_NAMES = Object.keys(WORKERS);

/** workerd takes a fixed address; a port the kernel just handed out is free to give it. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Bundles the named bench Worker into a new scratch directory with its config; returns the
 * directory and the config's path. `v8Flags` go to workerd's isolate (e.g. --perf-basic-prof).
 */
export async function prepareWorker(
  name: string,
  port: number,
  v8Flags: readonly string[] = [],
): Promise<{ dir: string; config: string }> {
  const worker = WORKERS[name];
  if (!worker) throw new Error(`no bench Worker named ${name} (${WORKER_NAMES.join(", ")})`);
  const bundled = await bundleFile(fileURLToPath(new URL(worker, import.meta.url)));
  if (bundled.unresolved.length > 0)
    throw new Error(`unresolved: ${bundled.unresolved.join(", ")}`);
  const dir = mkdtempSync(join(tmpdir(), "mcpwire-bench-workerd-"));
  writeFileSync(join(dir, "worker.js"), bundled.code);
  const config = join(dir, "config.capnp");
  writeFileSync(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  v8Flags = [${v8Flags.map((flag) => JSON.stringify(flag)).join(", ")}],
  services = [(name = "main", worker = .main)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const main :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed "worker.js")],
  compatibilityDate = "2025-09-01",
);
`,
  );
  return { dir, config };
}

/** Resolves once something accepts connections on the port (workerd prints nothing when ready). */
export async function accepting(
  port: number,
  exited: () => boolean,
  attempts = 200,
): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt++) {
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
