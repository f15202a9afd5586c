/**
 * Where a server's CPU goes per request, native and JIT code together: Linux `perf record`
 * (software clock, so it works in VMs without hardware counters) on the server process while a
 * bare client calls `tools/call echo`, with V8's `--perf-basic-prof` naming the JIT frames.
 * Counts instructions nowhere (see instructions-*.ts for that); it says which layer takes the
 * time: the kernel, the runtime's C++, V8's runtime and GC, builtins (those only baseline code
 * calls apart), and JS by tier.
 *
 *   node dist/bench/perf-profile.js workerd-bare|workerd-mcpwire|gateway
 *        [--concurrency 1] [--warmup 10000] [--seconds 8] [--top 25] [--keep]
 *
 * Needs `perf` (Debian's linux-perf) and permission to use it (root, or perf_event_paranoid <= 1).
 * `--keep` leaves perf.data and the perf map for `perf report`.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { benchArgs } from "./cli-options.js";
import { driveEcho, startGateway } from "./gateway-process.js";
import { bareHttpClient } from "./peers/bare-client.js";
import { accepting, freePort, prepareWorker, workerdBinary } from "./peers/workerd-config.js";

const run = promisify(execFile);
const TARGETS = ["workerd-bare", "workerd-mcpwire", "gateway"];
const FREQUENCY = 4999;

const args = benchArgs(process.argv.slice(2));
const target = args.own[0] ?? "";
if (!TARGETS.includes(target)) {
  process.stderr.write(
    `usage: perf-profile ${TARGETS.join("|")} [--concurrency N] [--warmup N] [--seconds N] [--top N] [--keep]\n`,
  );
  process.exit(2);
}
const concurrency = Number(args.value("--concurrency") ?? 1);
const warmup = Number(args.value("--warmup") ?? 10_000);
const seconds = Number(args.value("--seconds") ?? 8);
const top = Number(args.value("--top") ?? 25);
const keep = args.own.includes("--keep");

interface Server {
  process: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

async function startServer(dir: string): Promise<Server> {
  if (target === "gateway") {
    const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
    const { child, url } = await startGateway(root, dir, [], ["--perf-basic-prof"]);
    return { process: child, url, stop: () => stopped(child, "SIGTERM") };
  }
  const port = await freePort();
  const { dir: workerDir, config } = await prepareWorker(target.slice("workerd-".length), port, [
    "--perf-basic-prof",
  ]);
  const workerd = spawn(workerdBinary, ["serve", config], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  let exited = false;
  workerd.once("exit", () => {
    exited = true;
  });
  await accepting(port, () => exited);
  return {
    process: workerd,
    url: `http://127.0.0.1:${port}/mcp`,
    // workerd does not stop on SIGTERM.
    stop: async () => {
      await stopped(workerd, "SIGKILL");
      rmSync(workerDir, { recursive: true, force: true });
    },
  };
}

async function stopped(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = new Promise((done) => child.once("exit", done));
  child.kill(signal);
  await exit;
}

/** A sample's frames from `perf script -F ip,sym`, innermost first. */
function* samples(text: string): Generator<string[]> {
  for (const block of text.split("\n\n")) {
    const frames = block
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "")
      .map((line) => line.slice(line.indexOf(" ") + 1));
    if (frames.length > 0) yield frames;
  }
}

/** The layer a leaf frame belongs to. */
function layer(symbol: string): string {
  if (symbol.startsWith("JS:")) {
    // V8's perf map marks the tier: ~ interpreted, ^ baseline (Sparkplug), + Maglev, * TurboFan.
    const tier = { "~": "interpreter", "^": "baseline", "+": "Maglev", "*": "TurboFan" }[
      symbol[3]!
    ];
    return `JS, ${tier ?? "other"}`;
  }
  if (symbol.startsWith("Builtins_")) {
    return symbol.includes("Baseline") ? "V8 builtins for baseline code" : "V8 builtins";
  }
  if (/tcmalloc|^_?_?(int_)?malloc|^_?_?(int_)?free|cfree/i.test(symbol)) return "malloc";
  if (/v8::internal::(Heap|Scavenger|MarkCompact|Sweeper|Marking|MinorMS|GC)/.test(symbol)) {
    return "V8 GC";
  }
  if (symbol.startsWith("v8::") || symbol.startsWith("_ZN2v8")) return "V8 runtime";
  if (/^[a-z_][a-z0-9_.]*$/.test(symbol)) return "kernel and libc";
  return "the runtime's own (node, libuv, workerd, kj, jsg)";
}

const dir = mkdtempSync(join(tmpdir(), "mcpwire-perf-profile-"));
const server = await startServer(dir);
const client = bareHttpClient(server.url, concurrency);
try {
  await driveEcho(client, concurrency, warmup);
  let stop = false;
  let done = 0;
  const load = (async () => {
    while (!stop) {
      await driveEcho(client, concurrency, 200);
      done += 200;
    }
  })();
  const data = join(dir, "perf.data");
  const pid = String(server.process.pid);
  const before = done;
  await run("perf", [
    ...["record", "-e", "cpu-clock", "-F", String(FREQUENCY), "-g", "-p", pid, "-o", data],
    ...["--", "sleep", String(seconds)],
  ]);
  const requests = done - before;
  stop = true;
  await load;
  const { stdout } = await run("perf", ["script", "-i", data, "-F", "ip,sym"], {
    maxBuffer: 1 << 30,
  });
  const perRequest = (count: number) => ((count * 1e6) / FREQUENCY / requests).toFixed(1);
  const byLayer = new Map<string, number>();
  const byLeaf = new Map<string, number>();
  let total = 0;
  for (const frames of samples(stdout)) {
    total++;
    const leaf = frames[0]!;
    byLayer.set(layer(leaf), (byLayer.get(layer(leaf)) ?? 0) + 1);
    byLeaf.set(leaf, (byLeaf.get(leaf) ?? 0) + 1);
  }
  const lines = [
    `${target}, c=${concurrency}: ${requests} requests in ${seconds} s; CPU ${perRequest(total)} µs a request`,
    "",
    "| layer | µs a request |",
    "|---|---|",
    ...[...byLayer]
      .sort((a, b) => b[1] - a[1])
      .map(([name, n]) => `| ${name} | ${perRequest(n)} |`),
    "",
    `Top ${top} functions (self):`,
    ...[...byLeaf]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, n]) => `  ${perRequest(n).padStart(6)}  ${name.slice(0, 140)}`),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  if (keep) {
    writeFileSync(join(dir, "README"), `perf report -i ${data}\n`);
    process.stdout.write(`kept: ${data} (perf map /tmp/perf-${pid}.map)\n`);
  }
} finally {
  await client.close();
  await server.stop();
  if (!keep) {
    rmSync(dir, { recursive: true, force: true });
    rmSync(`/tmp/perf-${server.process.pid}.map`, { force: true });
  }
}
