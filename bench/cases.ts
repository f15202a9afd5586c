/**
 * What the harness measures: each case is one workload with its parameters and the rows
 * (client → server pairs) run against it. The first row of every case is the ratio's reference:
 * the bare Node limit, except for legacy sessions where it is the bare session table too.
 */
import type { ClientEra } from "./peers/types.js";
import type { ClusterSpec, Impl, OtelMode, Runtime, TrialSpec } from "./trial.js";

export interface Row {
  label: string;
  client: Impl;
  server: Impl;
  era: ClientEra;
  /** The server is a protected resource and the client sends a JWT access token. */
  auth?: boolean;
  /** legacy-calls: how many instances behind nginx, sharing sessions in Redis or not. */
  cluster?: ClusterSpec;
  /** mcpwire's server with one no-op middleware (server.use), to price the seam. */
  middleware?: boolean;
  /** legacy-calls: every caller on one session, or one session each (bare client only). */
  legacySessions?: "one" | "per-caller";
  /**
   * HTTP: the server's runtime (default node; workerd: a Worker in workerd); `native`: on
   * Bun.serve, not node:http.
   */
  runtime?: Runtime;
  native?: boolean;
  /** mcpwire's server traced by mcpwire/otel: API only (no provider), or the SDK in memory. */
  otel?: OtelMode;
  /**
   * Behind `mcpwire gateway --config` with this many echo servers (stdio children), called at
   * the first one's own endpoint (/servers/echo0/mcp).
   */
  gateway?: number;
  /** The gateway's limit: a bare HTTP-to-stdio relay in front of mcpwire's stdio echo server. */
  relay?: boolean;
}

export interface Case {
  id: string;
  title: string;
  /** The metric the ratio column is computed on. */
  primary: string;
  primaryLabel: string;
  /** Further metrics shown as medians. */
  secondary: string[];
  spec: Omit<TrialSpec, "client" | "server" | "era" | "legacySessions">;
  rows: Row[];
}

export interface Settings {
  quick: boolean;
  rounds: number;
  httpSeconds: number;
}

const LIMIT: Row = { label: "bare Node (limit)", client: "bare", server: "bare", era: "modern" };
const MCPWIRE: Row = { label: "mcpwire", client: "mcpwire", server: "mcpwire", era: "modern" };
const SDK_MODERN: Row = { label: "SDK v2 modern", client: "sdk", server: "sdk", era: "modern" };
const SDK_LEGACY: Row = { label: "SDK v2 legacy", client: "sdk", server: "sdk", era: "legacy" };
const OUR_SERVER: Row = {
  label: "mcpwire server ← bare client",
  client: "bare",
  server: "mcpwire",
  era: "modern",
};
/** Issue 27's budget: one no-op middleware costs at most 3% against OUR_SERVER. */
const OUR_SERVER_MIDDLEWARE: Row = {
  ...OUR_SERVER,
  label: "mcpwire server ← bare client, one no-op middleware",
  middleware: true,
};
const OUR_CLIENT: Row = {
  label: "mcpwire client → bare server",
  client: "mcpwire",
  server: "bare",
  era: "modern",
};
const SDK_SERVER: Row = {
  label: "SDK server ← bare client",
  client: "bare",
  server: "sdk",
  era: "modern",
};
const SDK_CLIENT: Row = {
  label: "SDK client → bare server",
  client: "sdk",
  server: "bare",
  era: "modern",
};

const STDIO_ROWS = [
  LIMIT,
  MCPWIRE,
  SDK_MODERN,
  SDK_LEGACY,
  OUR_SERVER,
  OUR_CLIENT,
  SDK_SERVER,
  SDK_CLIENT,
];
const SHORT_ROWS = [LIMIT, MCPWIRE, SDK_MODERN, SDK_LEGACY, OUR_SERVER, OUR_CLIENT];
const HTTP_ROWS = [LIMIT, MCPWIRE, SDK_MODERN, OUR_SERVER, OUR_CLIENT];
// The cold start of a client that does not pin an era: mcpwire's probe (server/discover) first.
const MCPWIRE_AUTO: Row = {
  label: "mcpwire, client era auto (probe)",
  client: "mcpwire",
  server: "mcpwire",
  era: "auto",
};
const COLD_ROWS = [...SHORT_ROWS, MCPWIRE_AUTO];
/** Rows of legacy session traffic: the bare session table is the limit. */
const LEGACY_LIMIT: Row = {
  label: "bare Node (limit)",
  client: "bare",
  server: "bare",
  era: "legacy",
};
const LEGACY_OURS: Row = { ...MCPWIRE, era: "legacy" };
const LEGACY_OUR_SERVER: Row = { ...OUR_SERVER, era: "legacy" };
const LEGACY_OUR_CLIENT: Row = { ...OUR_CLIENT, era: "legacy" };
const LEGACY_SDK_SERVER: Row = {
  label: "SDK v2 (sessionful) ← bare client",
  client: "bare",
  server: "sdk",
  era: "legacy",
};
const LEGACY_ROWS: Row[] = [
  { label: "bare Node (limit)", client: "bare", server: "bare", era: "legacy" },
  { label: "mcpwire", client: "bare", server: "mcpwire", era: "legacy" },
  { label: "SDK v2 (sessionful)", client: "bare", server: "sdk", era: "legacy" },
];

/** Issue 30's cases: the modern JSON echo at `concurrency`, req/s with latency, RSS and CPU. */
function runtimeCase(settings: Settings, concurrency: number): Omit<Case, "id" | "title" | "rows"> {
  return {
    primary: "reqPerSec",
    primaryLabel: "req/s",
    secondary: ["p50", "p99", "serverPeakRssMiB", "serverCpuUsPerRequest"],
    spec: { workload: "http", sse: false, concurrency, seconds: settings.httpSeconds },
  };
}

/** A bare handler (the limit) and mcpwire's server on one runtime, each driven by the bare client. */
function runtimeRows(
  where: Pick<Row, "runtime" | "native">,
  bareLabel: string,
  ourLabel: string,
): Row[] {
  const row = (label: string, server: Impl): Row => ({
    label,
    client: "bare",
    server,
    era: "modern",
    ...where,
  });
  return [row(bareLabel, "bare"), row(ourLabel, "mcpwire")];
}

export function benchCases(settings: Settings): Case[] {
  const q = settings.quick;
  const latency = ["p50", "p99"];
  const cases: Case[] = [
    {
      id: "stdio-seq",
      title: `stdio sequential, ${q ? 500 : 5000} calls`,
      primary: "callsPerSec",
      primaryLabel: "calls/s",
      secondary: [...latency, "serverCpuUsPerCall"],
      spec: { workload: "seq", calls: q ? 500 : 5000 },
      rows: STDIO_ROWS,
    },
    {
      id: "stdio-pipe",
      // 100,000 calls: the server's CPU is read in 10 ms ticks, so fewer would blur a 3% budget.
      title: `stdio pipelined, ${q ? 2000 : 100000} calls, 64 in flight`,
      primary: "callsPerSec",
      primaryLabel: "calls/s",
      secondary: [...latency, "serverCpuUsPerCall"],
      spec: { workload: "pipe", calls: q ? 2000 : 100000, inFlight: 64 },
      rows: [...STDIO_ROWS, OUR_SERVER_MIDDLEWARE],
    },
  ];
  for (const mib of [1, 8]) {
    const count = q ? 2 : 10;
    cases.push({
      id: `stdio-${mib}mib`,
      title: `stdio large, ${count} × ${mib} MiB`,
      primary: "mibPerSec",
      primaryLabel: "MiB/s",
      secondary: ["serverPeakRssMiB", "clientPeakRssMiB"],
      spec: { workload: "large", mib, count },
      rows: SHORT_ROWS,
    });
  }
  cases.push({
    id: "cold",
    title: `cold start, spawn → first tools/list (median of ${q ? 3 : 10})`,
    primary: "coldStartMs",
    primaryLabel: "ms (lower is better)",
    secondary: [],
    spec: { workload: "cold", spawns: q ? 3 : 10 },
    rows: COLD_ROWS,
  });
  for (const sse of [false, true]) {
    for (const concurrency of [1, 64]) {
      cases.push({
        id: `http-${sse ? "sse" : "json"}-c${concurrency}`,
        title: `HTTP modern, ${sse ? "SSE" : "JSON"} replies, c=${concurrency}, ${settings.httpSeconds} s`,
        primary: "reqPerSec",
        primaryLabel: "req/s",
        secondary: [...latency, "serverPeakRssMiB", "serverCpuUsPerRequest"],
        spec: { workload: "http", sse, concurrency, seconds: settings.httpSeconds },
        rows: !sse && concurrency === 64 ? [...HTTP_ROWS, OUR_SERVER_MIDDLEWARE] : HTTP_ROWS,
      });
    }
  }
  // Issue 30's budget: on Bun, mcpwire's modern echo at least 0.8× a bare handler on Bun on the
  // same HTTP server: Bun's node:http (serveHttp), and Bun.serve (createHttpHandler's fetch
  // handler, as Bun apps mount it). The servers run on Bun; the client is Node's bare one.
  for (const native of [false, true]) {
    for (const concurrency of [1, 64]) {
      cases.push({
        id: `bun-${native ? "serve" : "node-http"}-json-c${concurrency}`,
        title: `Bun ${native ? "Bun.serve" : "node:http"}: HTTP modern, JSON replies, c=${concurrency}, ${settings.httpSeconds} s`,
        ...runtimeCase(settings, concurrency),
        rows: runtimeRows(
          { runtime: "bun", native },
          "bare handler on Bun (limit)",
          native ? "mcpwire createHttpHandler ← bare client" : "mcpwire serveHttp ← bare client",
        ),
      });
    }
  }
  // The same budget on workerd: mcpwire's echo as a Worker (createHttpHandler, stateless) against
  // a bare fetch handler Worker, each served by the workerd binary with a one-service config
  // (peers/workerd-server.ts).
  for (const concurrency of [1, 64]) {
    cases.push({
      id: `workerd-json-c${concurrency}`,
      title: `workerd: HTTP modern, JSON replies, c=${concurrency}, ${settings.httpSeconds} s`,
      ...runtimeCase(settings, concurrency),
      rows: runtimeRows(
        { runtime: "workerd" },
        "bare handler on workerd (limit)",
        "mcpwire createHttpHandler ← bare client",
      ),
    });
  }
  // Issue 29's budgets: a call through the gateway to a stdio echo server at least 0.6× the same
  // server served directly over HTTP, and no slower with ten servers configured than with one.
  for (const concurrency of [1, 64]) {
    cases.push({
      id: `gateway-json-c${concurrency}`,
      title: `HTTP modern through mcpwire gateway to a stdio server, JSON replies, c=${concurrency}, ${settings.httpSeconds} s`,
      primary: "reqPerSec",
      primaryLabel: "req/s",
      secondary: [...latency, "serverPeakRssMiB", "serverCpuUsPerRequest"],
      spec: { workload: "http", sse: false, concurrency, seconds: settings.httpSeconds },
      rows: [
        OUR_SERVER,
        { ...OUR_SERVER, label: "bare relay to the stdio server ← bare client", relay: true },
        { ...OUR_SERVER, label: "mcpwire gateway, 1 server ← bare client", gateway: 1 },
        { ...OUR_SERVER, label: "mcpwire gateway, 10 servers ← bare client", gateway: 10 },
      ],
    });
  }
  // Issue 28's budgets: the otel middleware with no provider registered is within noise of no
  // tracing; with the SDK recording every span and metric in memory, at most 15% below it.
  cases.push({
    id: "http-json-c64-otel",
    title: `HTTP modern, JSON replies, c=64, OpenTelemetry, ${settings.httpSeconds} s`,
    primary: "reqPerSec",
    primaryLabel: "req/s",
    secondary: [...latency, "serverPeakRssMiB", "serverCpuUsPerRequest"],
    spec: { workload: "http", sse: false, concurrency: 64, seconds: settings.httpSeconds },
    rows: [
      OUR_SERVER,
      {
        ...OUR_SERVER,
        label: "mcpwire server ← bare client, otel middleware, API only",
        otel: "api",
      },
      {
        ...OUR_SERVER,
        label: "mcpwire server ← bare client, otel middleware, SDK in memory",
        otel: "memory",
      },
      // The same without the AsyncLocalStorage context manager: what Node's async context
      // tracking adds to every promise of the process, traced or not.
      {
        ...OUR_SERVER,
        label: "mcpwire server ← bare client, otel middleware, SDK in memory, no context manager",
        otel: "memory-no-context",
      },
    ],
  });
  // Issue 15's budget: JWT auth on loses at most 10% against auth off (the first row).
  cases.push({
    id: "http-json-c64-auth",
    title: `HTTP modern, JSON replies, c=64, JWT auth on, ${settings.httpSeconds} s`,
    primary: "reqPerSec",
    primaryLabel: "req/s",
    secondary: [...latency, "serverPeakRssMiB"],
    spec: { workload: "http", sse: false, concurrency: 64, seconds: settings.httpSeconds },
    rows: [
      OUR_SERVER,
      { ...OUR_SERVER, label: "mcpwire server ← bare client, JWT auth on", auth: true },
    ],
  });
  const sessions = q ? 200 : 1000;
  cases.push({
    id: "legacy-sessions",
    title: `legacy HTTP, RSS growth over ${sessions} initialize-only sessions`,
    primary: "kibPerSession",
    primaryLabel: "KiB/session (lower is better)",
    secondary: ["serverRssMiB", "heapKibPerSession"],
    spec: { workload: "legacy", sessions },
    rows: LEGACY_ROWS,
  });
  // Issue 18: legacy sessions (initialize once, then tools/call with Mcp-Session-Id).
  cases.push({
    id: "legacy-json-c1",
    title: `legacy HTTP session, JSON replies, c=1, ${settings.httpSeconds} s`,
    primary: "reqPerSec",
    primaryLabel: "req/s",
    secondary: [...latency, "serverPeakRssMiB"],
    spec: { workload: "legacy-calls", sse: false, concurrency: 1, seconds: settings.httpSeconds },
    rows: [LEGACY_LIMIT, LEGACY_OURS, LEGACY_OUR_SERVER, LEGACY_SDK_SERVER, LEGACY_OUR_CLIENT].map(
      (row) => ({ ...row, legacySessions: "one" as const }),
    ),
  });
  for (const sse of [false, true]) {
    for (const sessionsAt64 of ["one", "per-caller"] as const) {
      const one = sessionsAt64 === "one";
      // A library client is one session: it appears only where all 64 share one.
      const rows = one
        ? [LEGACY_LIMIT, LEGACY_OURS, LEGACY_OUR_SERVER, LEGACY_SDK_SERVER, LEGACY_OUR_CLIENT]
        : [LEGACY_LIMIT, LEGACY_OUR_SERVER, LEGACY_SDK_SERVER];
      cases.push({
        id: `legacy-${sse ? "sse" : "json"}-c64-${one ? "one" : "many"}`,
        title: `legacy HTTP, ${sse ? "SSE" : "JSON"} replies, c=64 ${one ? "on one session" : "on 64 sessions"}, ${settings.httpSeconds} s`,
        primary: "reqPerSec",
        primaryLabel: "req/s",
        secondary: [...latency, "serverPeakRssMiB"],
        spec: { workload: "legacy-calls", sse, concurrency: 64, seconds: settings.httpSeconds },
        rows: rows.map((row) => ({ ...row, legacySessions: sessionsAt64 })),
      });
    }
  }
  const heapRequests = q ? 8_000 : 80_000;
  cases.push({
    id: "legacy-heap",
    title: `legacy HTTP, live heap over ${heapRequests} requests at c=64 on one session (after a full GC every ${heapRequests / 4})`,
    primary: "heapSwingMiB",
    primaryLabel: "MiB live-heap swing (lower is better)",
    secondary: ["heapGrowthMiB", "heapMiB"],
    spec: {
      workload: "legacy-heap",
      sse: false,
      concurrency: 64,
      requests: heapRequests,
      readEvery: heapRequests / 4,
    },
    rows: [LEGACY_LIMIT, LEGACY_OUR_SERVER, LEGACY_SDK_SERVER].map((row) => ({
      ...row,
      legacySessions: "one" as const,
    })),
  });
  // Issue 17's budget: Redis-backed legacy throughput at least half of one in-memory instance
  // (the first row), all through the same round-robin nginx.
  const CLUSTER_ROW: Row = { label: "", client: "bare", server: "mcpwire", era: "legacy" };
  cases.push({
    id: "legacy-cluster-c64",
    title: `legacy HTTP sessions, c=64, through nginx, ${settings.httpSeconds} s`,
    primary: "reqPerSec",
    primaryLabel: "req/s",
    secondary: [...latency, "serverPeakRssMiB"],
    spec: { workload: "legacy-calls", concurrency: 64, seconds: settings.httpSeconds },
    rows: [
      { ...CLUSTER_ROW, label: "1 instance, in memory", cluster: { instances: 1, redis: false } },
      { ...CLUSTER_ROW, label: "1 instance on Redis", cluster: { instances: 1, redis: true } },
      { ...CLUSTER_ROW, label: "3 instances on Redis", cluster: { instances: 3, redis: true } },
    ],
  });
  return cases;
}

export const METRIC_LABELS: Record<string, string> = {
  p50: "p50 ms",
  p99: "p99 ms",
  serverPeakRssMiB: "server peak RSS MiB",
  clientPeakRssMiB: "client peak RSS MiB",
  serverRssMiB: "server RSS MiB",
  heapKibPerSession: "V8 heap growth, KiB/session (after a full GC)",
  heapGrowthMiB: "live heap, last reading minus first, MiB",
  heapMiB: "live heap at the last reading, MiB",
  serverCpuUsPerRequest: "server CPU µs/request (user + system; lower is better)",
  serverCpuUsPerCall: "server CPU µs/call (user + system; lower is better)",
};
