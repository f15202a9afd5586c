/**
 * Instructions per HTTP request of mcpwire's echo server, counted by callgrind (repeatable where
 * wall-clock timings on a shared machine are not):
 *
 *   node dist/bench/instructions-per-request.js [--auth | --header] [--otel api|memory|memory-no-context]
 *       [--middleware] [--warmup 3000]
 *       [--requests 10000] [--concurrency 64] [--keep DIR] [-- node flags for the server]
 *
 * The server runs under `valgrind --tool=callgrind`; after the warm-up (200 sequential calls, as a
 * trial makes, then the rest at the concurrency) its counters are zeroed, the counted requests
 * run, and the counters are dumped. Only the server process is counted.
 * `--auth`: the server takes JWT access tokens from a local issuer and the client sends one;
 * `--header`: auth off, but the client sends the same Authorization header (what the header alone
 * costs). The line printed also says how often V8's Runtime_DefineKeyedOwnPropertyInLiteral ran
 * per request: above zero means process.nextTick's tick-object literal has lost its inline cache
 * (see bench/RESULTS.md, issue 15).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { benchArgs } from "./cli-options.js";
import { bareHttpClient } from "./peers/bare-client.js";
import { startBenchIssuer } from "./peers/jwt-issuer.js";
import { serverEnv } from "./peers/types.js";

const run = promisify(execFile);

interface Options {
  auth: boolean;
  header: boolean;
  middleware: boolean;
  warmup: number;
  requests: number;
  concurrency: number;
  keep: string | undefined;
  /** The echo server traced by mcpwire/otel (issue 28): API only, or the SDK in memory. */
  otel: string | undefined;
  nodeFlags: string[];
}

function parse(argv: string[]): Options {
  const { own, after, value } = benchArgs(argv);
  const number = (name: string, fallback: number) => {
    const given = value(name);
    return given === undefined ? fallback : Number(given);
  };
  return {
    auth: own.includes("--auth"),
    header: own.includes("--header"),
    middleware: own.includes("--middleware"),
    warmup: number("--warmup", 3000),
    requests: number("--requests", 10_000),
    concurrency: number("--concurrency", 64),
    keep: value("--keep"),
    otel: value("--otel"),
    nodeFlags: after ?? [],
  };
}

function listening(child: ChildProcess): Promise<string> {
  let seen = "";
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`server exited early (${code})`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const match = /^listening (\S+)$/m.exec(seen);
      if (match) resolve(match[1]!);
    });
  });
}

async function calls(echo: (text: string) => Promise<unknown>, count: number, lanes: number) {
  let left = count;
  const lane = async () => {
    while (left-- > 0) {
      const text = `hello ${left}`;
      if ((await echoAgain(echo, text)) !== text) throw new Error("echo mismatch");
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

/**
 * One call, sent again if the server reset its keep-alive connection: under valgrind a server
 * stalled by a collection can let a pooled connection reach its keep-alive timeout just as the
 * client reuses it (the request never reached the server).
 */
async function echoAgain(echo: (text: string) => Promise<unknown>, text: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await echo(text);
    } catch (error) {
      if (attempt === 3 || (error as { code?: string }).code !== "ECONNRESET") throw error;
    }
  }
}

/**
 * The first call, tried again while it fails: under valgrind on a busy machine the server's
 * first metadata and JWKS fetches can outlast its 5 s timeout (it answers 503 then).
 */
async function firstCall(echo: (text: string) => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      if ((await echo("first")) === "first") return;
      throw new Error("echo mismatch");
    } catch (error) {
      if (attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/** Total Ir of a callgrind dump, and the calls of one function in it. */
async function readDump(file: string, fn: string): Promise<{ ir: number; calls: number }> {
  const { stdout } = await run(
    "callgrind_annotate",
    ["--tree=caller", "--inclusive=yes", "--threshold=100", file],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  const total = /^\s*([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS/m.exec(stdout);
  let calls = 0;
  const lines = stdout.split("\n");
  const self = lines.findIndex((line) => line.includes("*  ") && line.includes(fn));
  // The caller lines above the function's own line carry "(<n>x)" call counts.
  for (let i = self - 1; i >= 0 && lines[i]!.includes(" < "); i--) {
    const count = /\(([\d,]+)x\)/.exec(lines[i]!);
    if (count) calls += Number(count[1]!.replaceAll(",", ""));
  }
  return { ir: Number((total?.[1] ?? "NaN").replaceAll(",", "")), calls };
}

async function main(options: Options): Promise<void> {
  const dir = options.keep ?? mkdtempSync(join(tmpdir(), "mcpwire-instr-"));
  mkdirSync(dir, { recursive: true });
  const issuer = options.auth || options.header ? await startBenchIssuer() : undefined;
  const script = fileURLToPath(new URL("./echo-server.js", import.meta.url));
  const serverArgs = ["--http", "--port", "0"];
  if (options.auth) serverArgs.push("--jwt-issuer", issuer!.issuer);
  if (options.otel !== undefined) serverArgs.push("--otel", options.otel);
  if (options.middleware) serverArgs.push("--middleware");
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      `--callgrind-out-file=${join(dir, "callgrind.out")}`,
      process.execPath,
      ...options.nodeFlags,
      script,
      ...serverArgs,
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: serverEnv() },
  );
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  // With --keep, the server's output (e.g. --trace-gc or --trace-opt lines) is kept in
  // server.log next to the dumps, with the moments the counting starts and ends marked.
  const log = (text: string) => {
    if (options.keep !== undefined) appendFileSync(join(dir, "server.log"), text);
  };
  child.stdout!.on("data", (chunk: Buffer) => log(chunk.toString("utf8")));
  try {
    const url = await listening(child);
    const headers: Record<string, string> = issuer
      ? { authorization: `Bearer ${await issuer.mint(url)}` }
      : {};
    const client = bareHttpClient(url, options.concurrency, headers);
    try {
      const echo = (text: string) => client.echo(text);
      await firstCall(echo);
      await calls(echo, 199, 1);
      await calls(echo, options.warmup - 200, options.concurrency);
      await run("callgrind_control", ["-z", String(child.pid)]);
      log("=== counting starts\n");
      await calls(echo, options.requests, options.concurrency);
      await run("callgrind_control", ["-d", String(child.pid)]);
      log("=== counting ends\n");
    } finally {
      await client.close();
    }
    const dump = readdirSync(dir)
      .filter((name) => name.startsWith("callgrind.out"))
      .sort()
      .at(-1);
    if (dump === undefined) throw new Error(`no callgrind dump in ${dir}`);
    const { ir, calls: runtimeCalls } = await readDump(
      join(dir, dump),
      "Runtime_DefineKeyedOwnPropertyInLiteral",
    );
    const mode = options.auth ? "auth on" : options.header ? "auth off, header sent" : "auth off";
    process.stdout.write(
      `${mode}: ${Math.round(ir / options.requests)} instructions/request; ` +
        `DefineKeyedOwnPropertyInLiteral ${(runtimeCalls / options.requests).toFixed(2)}/request ` +
        `(${options.requests} requests at c=${options.concurrency})\n`,
    );
  } catch (error) {
    process.stderr.write(stderr.slice(-4000));
    throw error;
  } finally {
    child.kill("SIGKILL");
    await issuer?.close();
    if (options.keep === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

await main(parse(process.argv.slice(2)));
