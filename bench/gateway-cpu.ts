/**
 * CPU per request of `mcpwire gateway` and of its stdio child, read from /proc (Linux), while a
 * bare client calls the echo tool through the gateway (64 callers unless `--concurrency` says):
 * where the harness's gateway rows count the gateway process only, this says what the child
 * costs too.
 *
 *   node dist/bench/gateway-cpu.js [--requests 30000] [--runs 3] [--concurrency 64] [--root DIR]
 *
 * `--root` runs another checkout's build (its dist/pkg/cli/main.js and dist/bench/echo-server.js),
 * so that two commits can be compared by the same measurement, runs interleaved.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { driveEcho, startGateway } from "./gateway-process.js";
import { bareHttpClient } from "./peers/bare-client.js";

const OWN_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const WARMUP = 5000;

function option(argv: string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  return at < 0 ? undefined : argv[at + 1];
}

/** User + system CPU of a process so far, in microseconds (clock ticks of 10 ms). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function childrenOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  return text === "" ? [] : text.split(/\s+/).map(Number);
}

async function measure(root: string, requests: number, concurrency: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "mcpwire-gateway-cpu-"));
  const { child, url } = await startGateway(root, dir);
  const client = bareHttpClient(url, concurrency);
  const drive = (total: number) => driveEcho(client, concurrency, total);
  try {
    await drive(WARMUP);
    const [echo] = childrenOf(child.pid!);
    if (echo === undefined) throw new Error("the gateway has no child");
    const before = { gateway: cpuMicros(child.pid!), echo: cpuMicros(echo), at: performance.now() };
    await drive(requests);
    const seconds = (performance.now() - before.at) / 1000;
    const gateway = (cpuMicros(child.pid!) - before.gateway) / requests;
    const stdioChild = (cpuMicros(echo) - before.echo) / requests;
    return `${Math.round(requests / seconds)} req/s; CPU µs/request: gateway ${gateway.toFixed(0)}, stdio child ${stdioChild.toFixed(0)}`;
  } finally {
    await client.close();
    child.kill("SIGTERM");
    await new Promise((done) => child.once("exit", done));
    rmSync(dir, { recursive: true, force: true });
  }
}

const argv = process.argv.slice(2);
const requests = Number(option(argv, "--requests") ?? 30_000);
const runs = Number(option(argv, "--runs") ?? 3);
const concurrency = Number(option(argv, "--concurrency") ?? 64);
const roots = [
  OWN_ROOT,
  ...(option(argv, "--root") === undefined ? [] : [resolve(option(argv, "--root")!)]),
];
for (let run = 1; run <= runs; run++) {
  for (const root of roots) {
    process.stdout.write(
      `${root === OWN_ROOT ? "this build " : `${root} `}run ${run}, c=${concurrency}: ${await measure(root, requests, concurrency)}\n`,
    );
  }
}
