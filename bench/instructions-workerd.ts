/**
 * Instructions per request of a bench Worker in workerd (issue 30), counted by callgrind on the
 * workerd binary itself, with a bare node:http client sending `tools/call echo` one at a time:
 *
 *   node dist/bench/instructions-workerd.js bare|mcpwire [--warmup 3000] [--requests 2000] [--keep]
 *
 * After the warm-up the counters are zeroed (`callgrind_control -z`), the counted requests run,
 * and the counters are dumped; the figure to compare is workerd's main thread, where the
 * isolate runs. Repeatable to ~1% for one build, with one caveat: V8 may still run mcpwire's
 * JS in its interpreter after the warm-up under valgrind (a build then reads ~60k more), so
 * compare builds on their native work too (`--keep` leaves the dumps for callgrind_annotate).
 */
import { execFile, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { callgrind, readDumps } from "./callgrind-driver.js";
import { benchArgs } from "./cli-options.js";
import { bareHttpClient } from "./peers/bare-client.js";
import {
  accepting,
  freePort,
  prepareWorker,
  WORKER_NAMES,
  workerdBinary,
} from "./peers/workerd-config.js";

const run = promisify(execFile);
const args = benchArgs(process.argv.slice(2));
const name = args.own[0] ?? "";
if (!WORKER_NAMES.includes(name)) {
  process.stderr.write(
    "usage: instructions-workerd bare|mcpwire [--warmup N] [--requests N] [--keep]\n",
  );
  process.exit(2);
}
const warmup = Number(args.value("--warmup") ?? 3000);
const requests = Number(args.value("--requests") ?? 2000);
const keep = args.own.includes("--keep");

const port = await freePort();
const { dir, config } = await prepareWorker(name, port);
const valgrind = callgrind(join(dir, "callgrind.out"));
const workerd = spawn(valgrind[0]!, [...valgrind.slice(1), workerdBinary, "serve", config], {
  stdio: ["ignore", "ignore", "inherit"],
});
let exited = false;
workerd.once("exit", () => {
  exited = true;
});
try {
  await accepting(port, () => exited, 1200);
  const client = bareHttpClient(`http://127.0.0.1:${port}/mcp`, 1);
  const calls = async (count: number) => {
    for (let i = 0; i < count; i++) await client.echo("hello");
  };
  await calls(warmup);
  await run("callgrind_control", ["-z", String(workerd.pid)]);
  await calls(requests);
  await run("callgrind_control", ["-d", String(workerd.pid)]);
  const { main, all } = readDumps(dir);
  const perRequest = (count: number) => `${(count / requests / 1000).toFixed(1)}k`;
  process.stdout.write(
    `${name}: ${perRequest(main)} instructions a request on workerd's main thread, ${perRequest(all)} all threads${keep ? ` (dumps in ${dir})` : ""}\n`,
  );
  await client.close();
} finally {
  workerd.kill("SIGKILL");
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
