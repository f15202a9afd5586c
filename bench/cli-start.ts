/**
 * What `mcpwire --version` costs over a bare Node start (issue 31.2):
 *
 *   node dist/bench/cli-start.js [--runs 20] [--bin dist/pkg/cli/main.js] [-- <args>]
 *
 * Runs `node -e 0` and `node <bin> <args>` (default `--version`) in turn, `--runs` times each,
 * and prints the median wall time and, where `perf` can count it, the median CPU time
 * (task-clock: every thread's, so less moved by other load on the machine than wall time).
 * `npm run build` first: the bin measured is the bundle the package ships.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { benchArgs } from "./cli-options.js";
import { formatNumber, median } from "./stats.js";

interface Sample {
  wallMs: number;
  cpuMs: number | undefined;
}

function options(argv: string[]): { runs: number; bin: string; args: string[] } {
  const { value, after } = benchArgs(argv);
  return {
    runs: Number(value("--runs") ?? 20),
    bin: value("--bin") ?? "dist/pkg/cli/main.js",
    args: after ?? ["--version"],
  };
}

const hasPerf = (() => {
  try {
    execFileSync("perf", ["stat", "-x,", "-e", "task-clock", "--", "true"], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
})();

function sample(args: string[]): Sample {
  const command = hasPerf ? "perf" : process.execPath;
  const argv = hasPerf
    ? ["stat", "-x,", "-e", "task-clock", "--", process.execPath, ...args]
    : args;
  const start = process.hrtime.bigint();
  const child = spawnSync(command, argv, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (child.status !== 0) throw new Error(`${argv.join(" ")} failed: ${child.stderr}`);
  const stderr = child.stderr;
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const clock = /^([\d.]+),msec,task-clock/m.exec(stderr)?.[1];
  return { wallMs, cpuMs: clock === undefined ? undefined : Number(clock) };
}

const { runs, bin, args } = options(process.argv.slice(2));
const bare: Sample[] = [];
const cli: Sample[] = [];
sample([bin, ...args]); // the file cache warm for both
for (let run = 0; run < runs; run++) {
  bare.push(sample(["-e", "0"]));
  cli.push(sample([bin, ...args]));
}
const row = (name: string, samples: Sample[]) => {
  const cpu = samples.map((s) => s.cpuMs).filter((ms): ms is number => ms !== undefined);
  const wall = median(samples.map((s) => s.wallMs));
  return `${name.padEnd(44)} wall ${formatNumber(wall)} ms${cpu.length > 0 ? `, cpu ${formatNumber(median(cpu))} ms` : ""}`;
};
console.log(`${runs} runs each, medians${hasPerf ? "" : " (no perf: wall time only)"}`);
console.log(row("node -e 0", bare));
console.log(row(`node ${bin} ${args.join(" ")}`, cli));
