/**
 * `npm run bench`: runs every case's rows in fresh processes, interleaved (A B C …, the order
 * rotating each round), several rounds, then prints a markdown table of median (min–max) with
 * each row's ratio to the limit row. Every trial is also saved as a JSON line under
 * bench/results/ (gitignored).
 *
 *   npm run bench                 full run (~10 min on 2 cores)
 *   npm run bench -- --quick      smoke run (~1 min)
 *   flags / env: --rounds N (BENCH_ROUNDS), --http-seconds S (BENCH_HTTP_SECONDS),
 *                --only id,id (BENCH_ONLY; case ids or prefixes, e.g. stdio,http-json)
 *                --rows 'label;label' (BENCH_ROWS; row labels or their beginnings: only those
 *                rows run, the first one left in a case being its reference)
 *
 * "× limit" is the median over rounds of each row's value divided by the reference row's value
 * of the same round: rows compared trial by trial, so a machine that slows down for a while
 * moves both sides of a ratio rather than one.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { benchCases, type Case, METRIC_LABELS, type Row, type Settings } from "./cases.js";
import { formatNumber, median } from "./stats.js";
import type { TrialSpec } from "./trial.js";

const TRIAL_TIMEOUT_MS = 240_000;

function option(argv: string[], flag: string, env: string): string | undefined {
  const index = argv.indexOf(flag);
  return index >= 0 ? argv[index + 1] : process.env[env];
}

function settingsFrom(argv: string[]): Settings & { only: string[]; rows: string[] } {
  const quick = argv.includes("--quick");
  return {
    quick,
    rounds: Number(option(argv, "--rounds", "BENCH_ROUNDS") ?? (quick ? 1 : 3)),
    httpSeconds: Number(option(argv, "--http-seconds", "BENCH_HTTP_SECONDS") ?? (quick ? 1 : 3)),
    only: (option(argv, "--only", "BENCH_ONLY") ?? "").split(",").filter(Boolean),
    rows: (option(argv, "--rows", "BENCH_ROWS") ?? "")
      .split(";")
      .map((label) => label.trim())
      .filter(Boolean),
  };
}

type TrialOutcome = { metrics: Record<string, number> } | { error: string };

let running: ChildProcess | undefined;
let leftovers = 0;

/** Kills whatever is left in a finished trial's process group; returns whether anything was. */
function reapGroup(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {}
  return true;
}

function runTrial(spec: TrialSpec): Promise<TrialOutcome> {
  const script = fileURLToPath(new URL("./trial.js", import.meta.url));
  // Its own process group, so the trial and any server it started can be reaped together.
  const child = spawn(process.execPath, [script, JSON.stringify(spec)], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running = child;
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  const timer = setTimeout(() => {
    stderr += `\ntrial timed out after ${TRIAL_TIMEOUT_MS} ms`;
    reapGroup(child.pid!);
  }, TRIAL_TIMEOUT_MS);
  return new Promise((resolve) => {
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      running = undefined;
      if (reapGroup(child.pid!)) {
        leftovers++;
        process.stderr.write(`  ! processes left behind by a trial were killed\n`);
      }
      for (const line of stderr.split("\n"))
        if (line.startsWith("warning:")) process.stderr.write(`  ! ${line}\n`);
      const last = stdout.trim().split("\n").pop() ?? "";
      try {
        const parsed = JSON.parse(last) as { ok: boolean; metrics: Record<string, number> };
        if (code === 0 && parsed.ok) return resolve({ metrics: parsed.metrics });
      } catch {}
      resolve({
        error: `exit ${code ?? signal}: ${stderr.trim().split("\n").slice(-6).join(" | ")}`,
      });
    });
  });
}

function rotated<T>(items: T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

function machineLine(): string {
  const cpu = cpus();
  const memGiB = (totalmem() / 1024 ** 3).toFixed(0);
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
  return `${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, ${memGiB} GiB RAM, Linux ${release()}, Node ${process.version}; load average at start ${load}`;
}

/** A metric's values indexed by round; a round whose trial failed is a hole. */
type ByRound = number[];

function present(values: ByRound | undefined): number[] {
  return (values ?? []).filter((value) => value !== undefined);
}

/** The median over rounds of value / reference value, both from the same round. */
function pairedRatio(values: ByRound | undefined, reference: ByRound | undefined): string {
  const ratios: number[] = [];
  (values ?? []).forEach((value, round) => {
    const base = reference?.[round];
    if (value !== undefined && base !== undefined && base !== 0) ratios.push(value / base);
  });
  return ratios.length === 0 ? "" : `${median(ratios).toFixed(2)}×`;
}

function cell(byRound: ByRound | undefined): string {
  const values = present(byRound);
  if (values.length === 0) return "";
  const middle = formatNumber(median(values));
  if (values.length === 1) return middle;
  return `${middle} (${formatNumber(Math.min(...values))}–${formatNumber(Math.max(...values))})`;
}

type Collected = Map<string, Map<string, ByRound>>; // row label → metric → values

function table(
  cases: Case[],
  results: Map<string, Collected>,
  failures: Map<string, string[]>,
): string {
  const lines = [
    "| workload | row | result: median (min–max) | × limit | p50 ms | p99 ms | server RSS MiB | client RSS MiB |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const benchCase of cases) {
    const collected = results.get(benchCase.id)!;
    const reference = collected.get(benchCase.rows[0]!.label)?.get(benchCase.primary);
    for (const row of benchCase.rows) {
      const metrics = collected.get(row.label) ?? new Map<string, ByRound>();
      const primary = metrics.get(benchCase.primary);
      const failed = failures.get(`${benchCase.id}/${row.label}`);
      const ratio = pairedRatio(primary, reference);
      const result =
        failed && !primary
          ? `FAILED (${failed.length})`
          : `${cell(primary)} ${benchCase.primaryLabel}`;
      const serverRss = metrics.get("serverPeakRssMiB") ?? metrics.get("serverRssMiB");
      lines.push(
        `| ${benchCase.title} | ${row.label} | ${result}${failed && primary ? ` (${failed.length} failed)` : ""} | ${ratio} | ${cell(metrics.get("p50"))} | ${cell(metrics.get("p99"))} | ${cell(serverRss)} | ${cell(metrics.get("clientPeakRssMiB"))} |`,
      );
    }
  }
  return lines.join("\n");
}

/** Metrics the main table has no column for. */
const TABLE_COLUMNS = new Set([
  "p50",
  "p99",
  "serverPeakRssMiB",
  "serverRssMiB",
  "clientPeakRssMiB",
]);

/** One more small table per extra secondary metric (the legacy run's heap growth, say). */
function extraTables(cases: Case[], results: Map<string, Collected>): string[] {
  const lines: string[] = [];
  for (const benchCase of cases) {
    const collected = results.get(benchCase.id)!;
    for (const metric of benchCase.secondary.filter((name) => !TABLE_COLUMNS.has(name))) {
      const reference = collected.get(benchCase.rows[0]!.label)?.get(metric);
      lines.push(
        "",
        `| ${benchCase.title} | row | ${METRIC_LABELS[metric] ?? metric} | × limit |`,
        "|---|---|---|---|",
      );
      for (const row of benchCase.rows) {
        const values = collected.get(row.label)?.get(metric);
        lines.push(`| | ${row.label} | ${cell(values)} | ${pairedRatio(values, reference)} |`);
      }
    }
  }
  return lines;
}

async function main(): Promise<void> {
  const settings = settingsFrom(process.argv.slice(2));
  const cases = benchCases(settings)
    .filter(
      (benchCase) =>
        settings.only.length === 0 || settings.only.some((id) => benchCase.id.startsWith(id)),
    )
    .map((benchCase) => ({
      ...benchCase,
      rows: benchCase.rows.filter(
        (row) =>
          settings.rows.length === 0 || settings.rows.some((label) => row.label.startsWith(label)),
      ),
    }))
    .filter((benchCase) => benchCase.rows.length > 0);
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const resultsDir = fileURLToPath(new URL("../../bench/results/", import.meta.url));
  mkdirSync(resultsDir, { recursive: true });
  const jsonl = `${resultsDir}${stamp}${settings.quick ? "-quick" : ""}.jsonl`;
  const machine = machineLine();
  appendFileSync(
    jsonl,
    `${JSON.stringify({ kind: "run", machine, settings, started: new Date().toISOString() })}\n`,
  );

  const results = new Map<string, Collected>(cases.map((benchCase) => [benchCase.id, new Map()]));
  const failures = new Map<string, string[]>();
  const started = performance.now();
  const total = cases.reduce((sum, benchCase) => sum + benchCase.rows.length, 0) * settings.rounds;
  let done = 0;
  for (let round = 0; round < settings.rounds; round++) {
    for (const benchCase of cases) {
      for (const row of rotated<Row>(benchCase.rows, round)) {
        const spec: TrialSpec = {
          ...benchCase.spec,
          client: row.client,
          server: row.server,
          era: row.era,
          ...(row.auth ? { auth: true } : {}),
          ...(row.middleware ? { middleware: true } : {}),
          ...(row.cluster ? { cluster: row.cluster } : {}),
          ...(row.legacySessions ? { legacySessions: row.legacySessions } : {}),
          ...(row.runtime ? { runtime: row.runtime } : {}),
          ...(row.native ? { native: true } : {}),
          ...(row.otel ? { otel: row.otel } : {}),
          ...(row.gateway ? { gateway: row.gateway } : {}),
          ...(row.relay ? { relay: true } : {}),
        };
        const outcome = await runTrial(spec);
        done++;
        const elapsed = ((performance.now() - started) / 1000).toFixed(0);
        appendFileSync(
          jsonl,
          `${JSON.stringify({ kind: "trial", case: benchCase.id, row: row.label, round, spec, ...outcome })}\n`,
        );
        if ("error" in outcome) {
          const key = `${benchCase.id}/${row.label}`;
          failures.set(key, [...(failures.get(key) ?? []), outcome.error]);
          process.stderr.write(
            `[${done}/${total} ${elapsed}s] ${benchCase.id} · ${row.label}: FAILED ${outcome.error}\n`,
          );
          continue;
        }
        const collected = results.get(benchCase.id)!;
        const perRow = collected.get(row.label) ?? new Map<string, ByRound>();
        collected.set(row.label, perRow);
        for (const [name, value] of Object.entries(outcome.metrics)) {
          const values = perRow.get(name) ?? [];
          values[round] = value;
          perRow.set(name, values);
        }
        const primary = formatNumber(outcome.metrics[benchCase.primary] ?? Number.NaN);
        process.stderr.write(
          `[${done}/${total} ${elapsed}s] ${benchCase.id} · ${row.label}: ${primary} ${benchCase.primaryLabel}\n`,
        );
      }
    }
  }
  const markdown = [
    `Machine: ${machine}; load average at end ${loadavg()
      .map((value) => value.toFixed(2))
      .join(" ")}.`,
    `Rounds: ${settings.rounds}${settings.quick ? " (quick mode)" : ""}; wall time ${((performance.now() - started) / 1000).toFixed(0)} s.`,
    "",
    table(cases, results, failures),
    ...extraTables(cases, results),
    "",
  ].join("\n");
  writeFileSync(jsonl.replace(/\.jsonl$/, ".md"), markdown);
  appendFileSync(
    jsonl,
    `${JSON.stringify({ kind: "end", failures: Object.fromEntries(failures), leftovers })}\n`,
  );
  process.stdout.write(`${markdown}\nSaved ${jsonl}\n`);
  if (failures.size > 0 || leftovers > 0) process.exitCode = 1;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    if (running?.pid) reapGroup(running.pid);
    process.exit(130);
  });
}

await main();
