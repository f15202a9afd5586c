/**
 * Instructions per call of `mcpwire gateway` (callgrind, threads counted apart) while a bare
 * client calls the echo tool of its stdio child through `/servers/echo0/mcp`: the gateway runs
 * under valgrind, its child and the client do not. The counters are zeroed after the warm-up
 * and dumped after the counted calls, so only those are in the last dump.
 *
 *   node dist/bench/instructions-gateway.js [--concurrency 64] [--warmup 4000] [--requests 3000]
 *     [--keep DIR] [-- node options for the gateway]
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { callgrind, readDumps } from "./callgrind-driver.js";
import { benchArgs } from "./cli-options.js";
import { driveEcho, startGateway } from "./gateway-process.js";
import { bareHttpClient } from "./peers/bare-client.js";

const run = promisify(execFile);
const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));

const args = benchArgs(process.argv.slice(2));
const nodeOptions = args.after ?? [];
const concurrency = Number(args.value("--concurrency") ?? "64");
const warmup = Number(args.value("--warmup") ?? "4000");
const requests = Number(args.value("--requests") ?? "3000");
const keep = args.own.includes("--keep") ? (args.value("--keep") ?? "") : undefined;

const dir = keep ?? mkdtempSync(join(tmpdir(), "mcpwire-instructions-gateway-"));
mkdirSync(dir, { recursive: true });
const { child: gateway, url } = await startGateway(
  ROOT,
  dir,
  callgrind(join(dir, "callgrind.out")),
  nodeOptions,
);
try {
  const client = bareHttpClient(url, concurrency);
  await driveEcho(client, concurrency, warmup);
  await run("callgrind_control", ["-z", String(gateway.pid)]);
  await driveEcho(client, concurrency, requests);
  await run("callgrind_control", ["-d", String(gateway.pid)]);
  await client.close();
  const { all, main } = readDumps(dir);
  const perCall = (count: number) => `${(count / requests / 1000).toFixed(1)}k`;
  process.stdout.write(
    `c=${concurrency}: instructions/call main thread ${perCall(main)}, all threads ${perCall(all)}\n`,
  );
} finally {
  gateway.kill("SIGKILL");
  if (keep === undefined) rmSync(dir, { recursive: true, force: true });
}
