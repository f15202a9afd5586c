/**
 * Streamable HTTP workloads on 127.0.0.1: closed-loop echo traffic at a fixed concurrency for a
 * fixed time, and the memory a legacy server keeps per `initialize`-only session.
 */
import { setTimeout as delay } from "node:timers/promises";
import { bareHttpPoster } from "../peers/bare-client.js";
import type { BenchClient } from "../peers/types.js";
import { latencySummary, procCpuSeconds, procMemoryKb } from "../stats.js";
import type { Metrics } from "./stdio.js";

export async function throughput(
  client: BenchClient,
  serverPid: number,
  seconds: number,
  concurrency: number,
): Promise<Metrics> {
  // Warm-up by time, as long as the count and at the same concurrency: a row that is slower
  // per call (the gateway at c=1) would otherwise be counted while its JIT still compiles.
  await calls(client, concurrency, performance.now() + seconds * 1000, []);
  const latencies: number[] = [];
  const cpuBefore = await procCpuSeconds(serverPid);
  const started = performance.now();
  await calls(client, concurrency, started + seconds * 1000, latencies);
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = await procCpuSeconds(serverPid);
  const server = await procMemoryKb(serverPid);
  const cpuUsed =
    cpuAfter === undefined || cpuBefore === undefined ? Number.NaN : cpuAfter - cpuBefore;
  return {
    reqPerSec: latencies.length / elapsed,
    serverCpuUsPerRequest: (cpuUsed * 1e6) / latencies.length,
    ...latencySummary(latencies),
    serverRssMiB: (server?.rss ?? Number.NaN) / 1024,
    serverPeakRssMiB: (server?.hwm ?? Number.NaN) / 1024,
  };
}

/** Echo calls from `concurrency` callers until `deadline`, each one's latency kept. */
async function calls(
  client: BenchClient,
  concurrency: number,
  deadline: number,
  latencies: number[],
): Promise<void> {
  let counter = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const text = `hello ${counter++}`;
      const sent = performance.now();
      const echoed = await client.echo(text);
      latencies.push(performance.now() - sent);
      if (echoed !== text) throw new Error(`echo mismatch: ${echoed} for ${text}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/**
 * RSS growth per session over `sessions` legacy initialize-only sessions (KiB per session), read
 * after a full GC on both sides of the run so that uncollected garbage does not count.
 */
export async function legacySessions(
  url: string,
  serverPid: number,
  sessions: number,
  /** Full GC in the server; resolves with its heap in use afterwards (bytes). */
  collectGarbage: () => Promise<number>,
): Promise<Metrics> {
  const poster = bareHttpPoster(url, 8);
  const seen = new Set<string>();
  const open = async (count: number) => {
    let left = count;
    const lane = async () => {
      while (left-- > 0) {
        const reply = await poster.post(
          "initialize",
          {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "bench-legacy", version: "1.0.0" },
          },
          "legacy",
        );
        const id = reply.headers["mcp-session-id"];
        if (
          reply.status !== 200 ||
          typeof id !== "string" ||
          !reply.message?.result?.protocolVersion
        ) {
          throw new Error(`initialize failed: HTTP ${reply.status}, session ${String(id)}`);
        }
        if (seen.has(id)) throw new Error(`duplicate session id ${id}`);
        seen.add(id);
      }
    };
    await Promise.all(Array.from({ length: 8 }, lane));
  };
  try {
    // Warm-up: code compiled, socket pools and the young generation grown to their working size.
    // The young generation keeps growing for a couple of thousand requests (v8 space statistics:
    // with 300 it still grew ~12 KiB per later session, which RSS then counted as session data).
    await open(Math.max(300, 2 * sessions));
    await delay(200);
    const heapBefore = await collectGarbage();
    const before = await procMemoryKb(serverPid);
    await open(sessions);
    await delay(200);
    const heapAfter = await collectGarbage();
    const after = await procMemoryKb(serverPid);
    if (!before || !after) throw new Error("server exited during the run");
    return {
      kibPerSession: (after.rss - before.rss) / sessions,
      heapKibPerSession: (heapAfter - heapBefore) / 1024 / sessions,
      serverRssMiB: after.rss / 1024,
    };
  } finally {
    poster.close();
  }
}

/**
 * Live heap over a long legacy run: `requests` echo calls at `concurrency`, with the server's
 * heap read after a full GC every `readEvery` requests (the first reading after a warm-up of
 * `readEvery` requests). A server that keeps nothing per request reads flat; the swing is the
 * spread of the readings, the growth the last minus the first.
 */
export async function legacyHeap(
  client: BenchClient,
  concurrency: number,
  requests: number,
  readEvery: number,
  /** Full GC in the server; resolves with its heap in use afterwards (bytes). */
  collectGarbage: () => Promise<number>,
): Promise<Metrics> {
  const batch = async (count: number) => {
    let next = 0;
    const lane = async () => {
      while (next < count) {
        const text = `heap ${next++}`;
        const echoed = await client.echo(text);
        if (echoed !== text) throw new Error(`echo mismatch: ${echoed} for ${text}`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
  };
  await batch(readEvery);
  const readings = [await collectGarbage()];
  const started = performance.now();
  for (let done = 0; done < requests; done += readEvery) {
    await batch(Math.min(readEvery, requests - done));
    readings.push(await collectGarbage());
  }
  const seconds = (performance.now() - started) / 1000;
  const mib = readings.map((bytes) => bytes / 1024 / 1024);
  return {
    heapSwingMiB: Math.max(...mib) - Math.min(...mib),
    heapGrowthMiB: mib[mib.length - 1]! - mib[0]!,
    heapMiB: mib[mib.length - 1]!,
    reqPerSec: requests / seconds,
  };
}
