/**
 * Instructions per call of the stdio pipelined workload, counted by callgrind, one side at a time
 * (the sibling of instructions-per-request.ts, which counts an HTTP server):
 *
 *   node dist/bench/instructions-stdio.js [--side server|client] [--impl mcpwire|bare]
 *       [--era modern|legacy] [--warmup 3000] [--calls 10000] [--in-flight 64] [--keep DIR]
 *       [--middleware] [-- node flags for the counted process]
 *
 * `--middleware`: our server runs with one no-op middleware (server.use), to price the seam.
 *
 * Each side is measured against the bare peer, and only that side's process runs under
 * `valgrind --tool=callgrind`, so ours and the bare limit are counted under the same conditions
 * (the peer is equally fast for both):
 *   server: the bare stdio client spawns the server (ours or bare) under valgrind;
 *   client: a driver process (this script, `--drive`) runs the client (ours or bare) under
 *     valgrind; it spawns the bare server itself, natively.
 * After the warm-up (2000 sequential calls as the stdio workload makes, then the rest pipelined)
 * the counters are zeroed, the counted calls run pipelined, and the counters are dumped. Without
 * `--side`, `--impl` or `--era`, every combination runs and a table with the ratios is printed.
 * Figures: all threads, and the main thread alone (V8's compiler threads vary from run to run).
 * With `--keep`, each counted process's pid is printed: given `-- --perf-basic-prof`, its JIT
 * code is named in /tmp/perf-<pid>.map, which callgrind's `0x…` functions can be looked up in.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { callgrind, countDriver, driveCounted, readDumps } from "./callgrind-driver.js";
import { benchArgs } from "./cli-options.js";
import { bareStdioClient } from "./peers/bare-client.js";
import { mcpwireStdioClient } from "./peers/library-clients.js";
import type { BenchClient, Era, ServerCommand } from "./peers/types.js";

const run = promisify(execFile);

type Side = "server" | "client";
type Impl = "mcpwire" | "bare";

interface Options {
  sides: Side[];
  impls: Impl[];
  eras: Era[];
  warmup: number;
  calls: number;
  inFlight: number;
  keep: string | undefined;
  /** Our server with one no-op middleware. */
  middleware: boolean;
  nodeFlags: string[];
}

const SEQUENTIAL_WARMUP = 2000;

function parse(all: string[]): Options {
  const { own: argv, after, value } = benchArgs(all);
  const list = <T extends string>(name: string, all: T[]): T[] => {
    const given = value(name);
    if (given === undefined) return all;
    if (!all.includes(given as T)) throw new Error(`${name}: one of ${all.join(", ")}`);
    return [given as T];
  };
  return {
    sides: list<Side>("--side", ["server", "client"]),
    impls: list<Impl>("--impl", ["mcpwire", "bare"]),
    eras: list<Era>("--era", ["modern", "legacy"]),
    warmup: Number(value("--warmup") ?? 3000),
    calls: Number(value("--calls") ?? 10_000),
    inFlight: Number(value("--in-flight") ?? 64),
    keep: value("--keep"),
    middleware: argv.includes("--middleware"),
    nodeFlags: after ?? [],
  };
}

const SCRIPTS: Record<Impl, string> = {
  mcpwire: "./echo-server.js",
  bare: "./peers/bare-server.js",
};

function serverCommand(
  impl: Impl,
  prefix: string[] = [],
  nodeFlags: string[] = [],
  middleware = false,
): ServerCommand {
  const script = fileURLToPath(new URL(SCRIPTS[impl], import.meta.url));
  const extra = middleware && impl === "mcpwire" ? ["--middleware"] : [];
  const node = [process.execPath, ...nodeFlags, script, "--stdio", ...extra];
  return prefix.length === 0
    ? { command: node[0]!, args: node.slice(1) }
    : { command: prefix[0]!, args: [...prefix.slice(1), ...node] };
}

function connect(impl: Impl, server: ServerCommand, era: Era): Promise<BenchClient> {
  return impl === "mcpwire" ? mcpwireStdioClient(server, era) : bareStdioClient(server, era);
}

async function calls(client: BenchClient, count: number, lanes: number): Promise<void> {
  let left = count;
  const lane = async () => {
    while (left-- > 0) {
      const text = `hello ${left}`;
      if ((await client.echo(text)) !== text) throw new Error("echo mismatch");
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

async function warmUp(client: BenchClient, options: Options): Promise<void> {
  const sequential = Math.min(SEQUENTIAL_WARMUP, options.warmup);
  await calls(client, sequential, 1);
  await calls(client, options.warmup - sequential, options.inFlight);
}

/** Our or the bare server under callgrind, driven by the bare client. */
async function countServer(impl: Impl, era: Era, options: Options, dir: string) {
  const client = await bareStdioClient(
    serverCommand(
      impl,
      callgrind(join(dir, "callgrind.out")),
      options.nodeFlags,
      options.middleware,
    ),
    era,
  );
  const pid = String(client.serverPid());
  if (options.keep !== undefined) process.stdout.write(`${dir}: pid ${pid}\n`);
  try {
    await warmUp(client, options);
    await run("callgrind_control", ["-z", pid]);
    await calls(client, options.calls, options.inFlight);
    await run("callgrind_control", ["-d", pid]);
  } finally {
    await client.close();
  }
  return readDumps(dir);
}

/** Our or the bare client under callgrind (this script's --drive mode), against the bare server. */
function countClient(impl: Impl, era: Era, options: Options, dir: string) {
  const script = fileURLToPath(import.meta.url);
  const node = [
    process.execPath,
    ...options.nodeFlags,
    script,
    "--drive",
    impl,
    "--era",
    era,
    "--warmup",
    String(options.warmup),
    "--calls",
    String(options.calls),
    "--in-flight",
    String(options.inFlight),
  ];
  return countDriver(node, dir, options.keep !== undefined);
}

/** --drive: the client side, run under callgrind by countClient; told when to go on stdin. */
async function drive(impl: Impl, era: Era, options: Options): Promise<void> {
  const client = await connect(impl, serverCommand("bare"), era);
  await driveCounted(
    () => warmUp(client, options),
    () => calls(client, options.calls, options.inFlight),
  );
  await client.close();
}

async function main(argv: string[]): Promise<void> {
  const options = parse(argv);
  const driving = argv.indexOf("--drive");
  if (driving >= 0) {
    await drive(argv[driving + 1] as Impl, options.eras[0]!, options);
    process.exit(0);
  }
  const rows: string[] = [];
  for (const era of options.eras) {
    for (const side of options.sides) {
      const counted: Partial<Record<Impl, { all: number; main: number }>> = {};
      for (const impl of options.impls) {
        const dir = mkdtempSync(join(options.keep ?? tmpdir(), `stdio-${side}-${impl}-${era}-`));
        try {
          const count = side === "server" ? countServer : countClient;
          const { all, main } = await count(impl, era, options, dir);
          counted[impl] = { all: all / options.calls, main: main / options.calls };
        } finally {
          if (options.keep === undefined) rmSync(dir, { recursive: true, force: true });
        }
        const mine = counted[impl]!;
        process.stdout.write(
          `${era} ${side} ${impl}: ${Math.round(mine.all)} instructions/call, main thread ` +
            `${Math.round(mine.main)} (${options.calls} calls, ${options.inFlight} in flight)\n`,
        );
      }
      const ours = counted.mcpwire;
      const bare = counted.bare;
      if (ours && bare) {
        const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
        rows.push(
          `| ${era} | ${side} | ${k(ours.all)} | ${k(bare.all)} | ${(ours.all / bare.all).toFixed(2)} ` +
            `| ${k(ours.main)} | ${k(bare.main)} | ${(ours.main / bare.main).toFixed(2)} |`,
        );
      }
    }
  }
  if (rows.length > 0) {
    process.stdout.write(
      "| era | side | ours | bare | ours/bare | ours (main) | bare (main) | ours/bare (main) |\n" +
        "|---|---|---|---|---|---|---|---|\n" +
        `${rows.join("\n")}\n`,
    );
  }
}

await main(process.argv.slice(2));
