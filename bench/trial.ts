/**
 * One measurement in a fresh process: `node trial.js '<TrialSpec JSON>'`. It launches the server
 * it needs, runs one workload, stops everything it started and prints one JSON line of metrics.
 * The harness runs many of these, interleaved.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startNginx } from "../test/helpers/nginx.js";
import { startPrivateRedis } from "../test/helpers/redis.js";
import { bareHttpClient, bareLegacyHttpClient, bareStdioClient } from "./peers/bare-client.js";
import { startBenchIssuer } from "./peers/jwt-issuer.js";
import {
  mcpwireHttpClient,
  mcpwireStdioClient,
  sdkHttpClient,
  sdkStdioClient,
} from "./peers/library-clients.js";
import {
  type BenchClient,
  type ClientEra,
  type Era,
  type ServerCommand,
  serverEnv,
} from "./peers/types.js";
import { legacyHeap, legacySessions, throughput } from "./workloads/http.js";
import { coldStart, large, type Metrics, pipelined, sequential } from "./workloads/stdio.js";

export type Impl = "mcpwire" | "sdk" | "bare";
export type Workload =
  | "seq"
  | "pipe"
  | "large"
  | "cold"
  | "http"
  | "legacy"
  | "legacy-calls"
  | "legacy-heap";

/** Legacy sessions served by several echo servers behind a round-robin nginx. */
export interface ClusterSpec {
  instances: number;
  /** Sessions shared in a private redis-server (else in memory: one instance only). */
  redis: boolean;
}

export interface TrialSpec {
  workload: Workload;
  client: Impl;
  server: Impl;
  /** "auto" (mcpwire's client only): its era probe, as a client that does not pin an era. */
  era: ClientEra;
  calls?: number;
  inFlight?: number;
  mib?: number;
  count?: number;
  spawns?: number;
  seconds?: number;
  concurrency?: number;
  sse?: boolean;
  sessions?: number;
  /** HTTP only: the server takes JWT access tokens from a local issuer; the client sends one. */
  auth?: boolean;
  /** legacy-calls only. */
  cluster?: ClusterSpec;
  /** mcpwire's server only: one no-op middleware on it (`--middleware`). */
  middleware?: boolean;
  /** legacy-calls and legacy-heap: every caller on one session, or one session per caller. */
  legacySessions?: "one" | "per-caller";
  /** legacy-heap: requests in all, and how many between two live-heap readings. */
  requests?: number;
  readEvery?: number;
  /** HTTP: the runtime the server runs on (default node; workerd: modern JSON echo only). */
  runtime?: Runtime;
  /** HTTP on Bun: the server's fetch handler on Bun.serve instead of node:http. */
  native?: boolean;
  /** mcpwire's server only: traced by mcpwire/otel (`--otel api|memory`). */
  otel?: OtelMode;
  /** HTTP: mcpwire's echo server as this many stdio children of `mcpwire gateway --config`. */
  gateway?: number;
  /** HTTP: mcpwire's stdio echo server behind the bare relay (peers/bare-relay.ts). */
  relay?: boolean;
}

/** workerd: the server is a Worker (workers/), run by the workerd binary (peers/workerd-server.ts). */
export type Runtime = "node" | "bun" | "workerd";

/**
 * The echo server's `--otel` mode: the middleware alone (API only), or the SDK in memory (with
 * or without its AsyncLocalStorage context manager).
 */
export type OtelMode = "api" | "memory" | "memory-no-context";

const SERVER_SCRIPTS: Record<Impl, string> = {
  mcpwire: "./echo-server.js",
  sdk: "./peers/sdk-server.js",
  bare: "./peers/bare-server.js",
};

/** The `bun` devDependency's binary (its npm package carries it). */
const BUN = fileURLToPath(new URL("../../node_modules/.bin/bun", import.meta.url));

function serverCommand(impl: Impl, args: string[], runtime: Runtime = "node"): ServerCommand {
  if (runtime === "workerd") return workerdCommand(impl, args);
  const script = fileURLToPath(new URL(SERVER_SCRIPTS[impl], import.meta.url));
  return { command: runtime === "bun" ? BUN : process.execPath, args: [script, ...args] };
}

/** The workerd rows serve one thing: the modern echo, JSON replies, no option. */
function workerdCommand(impl: Impl, args: string[]): ServerCommand {
  if (impl === "sdk") throw new Error("no SDK Worker in the bench");
  const options = args.filter((arg) => arg !== "--http");
  if (options.length > 0) throw new Error(`the workerd rows take no option (${options.join(" ")})`);
  const script = fileURLToPath(new URL("./peers/workerd-server.js", import.meta.url));
  return { command: process.execPath, args: [script, impl] };
}

/** The era of a client that cannot probe (the SDK's and the bare ones): "auto" is mcpwire's. */
function fixedEra(spec: TrialSpec): Era {
  if (spec.era === "auto")
    throw new Error(`era "auto" is mcpwire's client only, not ${spec.client}`);
  return spec.era;
}

function stdioClient(spec: TrialSpec): Promise<BenchClient> {
  const server = serverCommand(spec.server, ["--stdio", ...middlewareArgs(spec)]);
  if (spec.client === "mcpwire") return mcpwireStdioClient(server, spec.era);
  if (spec.client === "sdk") return sdkStdioClient(server, fixedEra(spec));
  return bareStdioClient(server, fixedEra(spec));
}

/** The echo server's `--middleware` flag, for the rows that price the middleware seam. */
function middlewareArgs(spec: TrialSpec): string[] {
  if (!spec.middleware) return [];
  if (spec.server !== "mcpwire") throw new Error("the middleware row is mcpwire's server only");
  return ["--middleware"];
}

/** Workloads on legacy sessions: the bare and SDK servers need their session flag for them. */
const LEGACY_WORKLOADS = new Set<Workload>(["legacy", "legacy-calls", "legacy-heap"]);
/** Workloads that read the server's live heap (GC hook on, see collectGarbage). */
const HEAP_WORKLOADS = new Set<Workload>(["legacy", "legacy-heap"]);

/**
 * Node flags for every server in a memory run. `--expose-gc`: the run asks the server for a full
 * GC before reading RSS (see peers/gc-hook.ts). The young generation is pinned at the size busy
 * servers grow it to (2 × 16 MiB semi-spaces on 64-bit Node 20): left to grow, it doubled at
 * whichever point each server's allocation rate made V8 decide to, sometimes inside the measured
 * window, and RSS then counted up to 16 MiB of young generation as "session" memory.
 */
const MEMORY_FLAGS = ["--expose-gc", "--min-semi-space-size=16", "--max-semi-space-size=16"];

/**
 * `mcpwire gateway --config` over `count` echo servers on stdio; the URL is the first one's own
 * endpoint. The gateway process is the measured server (its children's CPU is not counted).
 */
async function startGateway(count: number): Promise<{ child: ChildProcess; url: string }> {
  const echo = fileURLToPath(new URL(SERVER_SCRIPTS.mcpwire, import.meta.url));
  // The shipped bundle, as `npx mcpwire gateway` runs it.
  const cli = fileURLToPath(new URL("../pkg/cli/main.js", import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), "mcpwire-bench-gateway-"));
  const config = join(dir, "mcp.json");
  const servers: Record<string, { command: string; args: string[] }> = {};
  for (let i = 0; i < count; i++)
    servers[`echo${i}`] = { command: process.execPath, args: [echo, "--stdio"] };
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  const args = [cli, "gateway", "--listen", "127.0.0.1:0", "--config", config];
  // One entry alone is served at /mcp; a list (trailing comma) serves it the many-server way.
  if (count === 1) args.push("--server", "echo0,");
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: serverEnv({}),
  });
  child.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  let seen = "";
  const origin = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`gateway exited early (${code}): ${seen}`)));
    child.stderr!.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const match = /^listening on (\S+)$/m.exec(seen);
      if (match) resolve(match[1]!);
    });
  });
  return { child, url: `${origin}/servers/echo0/mcp` };
}

/** The bare relay in front of mcpwire's stdio echo server; the relay is the measured server. */
function startRelay(): Promise<{ child: ChildProcess; url: string; pid: number }> {
  const relay = fileURLToPath(new URL("./peers/bare-relay.js", import.meta.url));
  const echo = fileURLToPath(new URL(SERVER_SCRIPTS.mcpwire, import.meta.url));
  const child = spawn(process.execPath, [relay, "--", process.execPath, echo, "--stdio"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: serverEnv({}),
  });
  return listeningUrl(child);
}

/**
 * Starts an HTTP server child and waits for its `listening <url>` line. `pid`: the process that
 * serves the requests, whose CPU and memory are read: the child, or the one its line names
 * (`listening <url> pid <n>`: the workerd process).
 */
async function startHttpServer(
  spec: TrialSpec,
  issuer?: string,
  extraArgs: string[] = [],
): Promise<{ child: ChildProcess; url: string; pid: number }> {
  if (spec.gateway !== undefined) {
    const gateway = await startGateway(spec.gateway);
    return { ...gateway, pid: gateway.child.pid! };
  }
  if (spec.relay) return startRelay();
  const args = ["--http", ...middlewareArgs(spec), ...extraArgs];
  if (spec.sse) args.push("--sse");
  if (issuer !== undefined) args.push("--jwt-issuer", issuer);
  if (spec.native) args.push("--native");
  if (spec.otel) {
    if (spec.server !== "mcpwire") throw new Error("the otel rows are mcpwire's server only");
    args.push("--otel", spec.otel);
  }
  // mcpwire serves legacy sessions next to the modern era by default.
  if (LEGACY_WORKLOADS.has(spec.workload) && spec.server !== "mcpwire")
    args.push(spec.server === "sdk" ? "--legacy-sessions" : "--legacy");
  const { command, args: full } = serverCommand(spec.server, args, spec.runtime);
  const flags =
    spec.workload === "legacy"
      ? MEMORY_FLAGS
      : spec.workload === "legacy-heap"
        ? ["--expose-gc"]
        : [];
  const child = spawn(command, [...flags, ...full], {
    stdio: ["ignore", "pipe", "pipe"],
    env: serverEnv(HEAP_WORKLOADS.has(spec.workload) ? { BENCH_GC: "1" } : {}),
  });
  return listeningUrl(child);
}

/** Waits for a server child's `listening <url> [pid <n>]` line; its stderr goes to ours. */
function listeningUrl(
  child: ChildProcess,
): Promise<{ child: ChildProcess; url: string; pid: number }> {
  child.stderr!.pipe(process.stderr, { end: false });
  let seen = "";
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`HTTP server exited early (${code})`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const match = /^listening (\S+)(?: pid (\d+))?$/m.exec(seen);
      if (match) resolve({ child, url: match[1]!, pid: Number(match[2] ?? child.pid) });
    });
  });
}

/**
 * Asks a server started with the GC hook for a full collection, waits until it is done, and
 * resolves with the heap in use afterwards (bytes).
 */
function collectGarbage(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error("server did not answer the GC request")),
      10_000,
    );
    const onData = (chunk: Buffer) => {
      const done = /bench-gc-done (\d+)/.exec(chunk.toString("utf8"));
      if (!done) return;
      clearTimeout(timer);
      child.stderr!.off("data", onData);
      resolve(Number(done[1]));
    };
    child.stderr!.on("data", onData);
    child.kill("SIGUSR2");
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

async function withStdioClient(spec: TrialSpec, run: (client: BenchClient) => Promise<Metrics>) {
  const client = await stdioClient(spec);
  const pid = client.serverPid();
  try {
    return await run(client);
  } finally {
    await client.close();
    assertGone(pid);
  }
}

/** A stdio server must be gone once its client closed; a survivor is a harness or library bug. */
function assertGone(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, 0);
  } catch {
    return;
  }
  process.kill(pid, "SIGKILL");
  process.stderr.write(`warning: stdio server ${pid} outlived client.close(); killed\n`);
}

async function runHttp(spec: TrialSpec): Promise<Metrics> {
  if (spec.auth && (spec.server !== "mcpwire" || spec.client !== "bare")) {
    throw new Error("the JWT auth row is mcpwire server ← bare client only");
  }
  const issuer = spec.auth ? await startBenchIssuer() : undefined;
  const { child, url, pid } = await startHttpServer(spec, issuer?.issuer);
  const authHeaders: Record<string, string> = issuer
    ? { authorization: `Bearer ${await issuer.mint(url)}` }
    : {};
  try {
    if (spec.workload === "legacy") {
      return await legacySessions(url, pid, spec.sessions ?? 1000, () => collectGarbage(child));
    }
    const concurrency = spec.concurrency ?? 1;
    if (spec.workload === "legacy-heap") {
      const client = bareLegacyHttpClient(url, concurrency, spec.legacySessions);
      try {
        return await legacyHeap(
          client,
          concurrency,
          spec.requests ?? 80_000,
          spec.readEvery ?? 20_000,
          () => collectGarbage(child),
        );
      } finally {
        await client.close();
      }
    }
    const client = await httpClient(spec, url, concurrency, authHeaders);
    try {
      return await throughput(client, pid, spec.seconds ?? 3, concurrency);
    } finally {
      await client.close();
    }
  } finally {
    await stopChild(child);
    await issuer?.close();
  }
}

/** The client of an HTTP throughput trial (legacy-calls: on legacy sessions). */
async function httpClient(
  spec: TrialSpec,
  url: string,
  concurrency: number,
  authHeaders: Record<string, string>,
): Promise<BenchClient> {
  const legacy = spec.workload === "legacy-calls";
  if (legacy && spec.client !== "bare" && spec.legacySessions === "per-caller") {
    throw new Error(
      "one session per caller is the bare client only (a library client is one session)",
    );
  }
  if (spec.client === "mcpwire") return mcpwireHttpClient(url, legacy ? "legacy" : spec.era);
  if (spec.client === "sdk") return sdkHttpClient(url, legacy ? "legacy" : fixedEra(spec));
  if (legacy) return bareLegacyHttpClient(url, concurrency, spec.legacySessions);
  return bareHttpClient(url, concurrency, authHeaders);
}

/**
 * Legacy sessions at a fixed concurrency through nginx, over `instances` echo servers sharing
 * their sessions in a private redis-server (or one in-memory server): each caller's session is
 * served by every instance in turn (round-robin, no affinity).
 */
async function runLegacyCluster(spec: TrialSpec): Promise<Metrics> {
  const { instances, redis: shared } = spec.cluster ?? { instances: 1, redis: false };
  if (spec.server !== "mcpwire" || spec.client !== "bare") {
    throw new Error("the legacy cluster rows are mcpwire server ← bare client only");
  }
  if (instances > 1 && !shared) throw new Error("several instances need shared state (redis)");
  const redis = shared ? await startPrivateRedis("bench legacy cluster") : undefined;
  const servers: Array<{ child: ChildProcess; url: string }> = [];
  let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
  try {
    const extra = redis ? ["--redis", redis.url, "--redis-prefix", "bench:"] : [];
    for (let i = 0; i < instances; i++) servers.push(await startHttpServer(spec, undefined, extra));
    const ports = servers.map(({ url }) => Number(new URL(url).port));
    nginx = await startNginx("bench legacy cluster", ports);
    const concurrency = spec.concurrency ?? 64;
    const client = bareLegacyHttpClient(`${nginx.origin}/mcp`, concurrency, "per-caller");
    try {
      return await throughput(client, servers[0]!.child.pid!, spec.seconds ?? 3, concurrency);
    } finally {
      await client.close();
    }
  } finally {
    await nginx?.stop();
    await Promise.all(servers.map(({ child }) => stopChild(child)));
    await redis?.stop();
  }
}

export async function runTrial(spec: TrialSpec): Promise<Metrics> {
  switch (spec.workload) {
    case "seq":
      return withStdioClient(spec, (client) => sequential(client, spec.calls ?? 5000));
    case "pipe":
      return withStdioClient(spec, (client) =>
        pipelined(client, spec.calls ?? 20000, spec.inFlight ?? 64),
      );
    case "large":
      return withStdioClient(spec, (client) => large(client, spec.mib ?? 1, spec.count ?? 10));
    case "cold":
      return coldStart(async () => {
        const client = await stdioClient(spec);
        const pid = client.serverPid();
        return {
          ...client,
          close: async () => {
            await client.close();
            assertGone(pid);
          },
        };
      }, spec.spawns ?? 10);
    case "http":
    case "legacy":
    case "legacy-heap":
      return runHttp(spec);
    case "legacy-calls":
      return spec.cluster ? runLegacyCluster(spec) : runHttp(spec);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const spec = JSON.parse(process.argv[2] ?? "{}") as TrialSpec;
  const metrics = await runTrial(spec);
  process.stdout.write(`${JSON.stringify({ ok: true, metrics })}\n`);
  // Client libraries may keep pools or timers alive; the trial is over.
  process.exit(0);
}
