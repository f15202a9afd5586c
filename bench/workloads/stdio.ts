/**
 * stdio workloads: sequential and pipelined echo calls, large payloads, cold start. Every reply
 * is checked against what was sent; a wrong reply fails the trial rather than skewing a figure.
 */

import type { BenchClient } from "../peers/types.js";
import { latencySummary, median, procCpuSeconds, procMemoryKb } from "../stats.js";

export type Metrics = Record<string, number>;

async function checkedEcho(client: BenchClient, text: string): Promise<void> {
  const echoed = await client.echo(text);
  if (echoed !== text) {
    const shown = echoed === undefined ? "undefined" : `${echoed.length} chars`;
    throw new Error(`echo mismatch: sent ${text.length} chars, got ${shown}`);
  }
}

/**
 * Calls made before measuring: enough for V8 to optimise every implementation's hot path. With
 * 200, bare Node's own calls still took ~1.8× their steady-state time and mcpwire's ~2×, so the
 * figures measured JIT tiering more than calls/s.
 */
const WARM_UP_CALLS = 2000;

async function warmUp(client: BenchClient, calls: number): Promise<void> {
  for (let i = 0; i < calls; i++) await checkedEcho(client, `warm-${i}`);
}

/**
 * The server's CPU (user + system) per call over the measured calls, in microseconds: steadier
 * than calls/s on a shared VM, where wall-clock rounds swing with the neighbours.
 */
async function serverCpuMeter(client: BenchClient): Promise<(calls: number) => Promise<number>> {
  const pid = client.serverPid();
  const before = await procCpuSeconds(pid);
  return async (calls) => {
    const after = await procCpuSeconds(pid);
    if (before === undefined || after === undefined) return Number.NaN;
    return ((after - before) * 1e6) / calls;
  };
}

export async function sequential(client: BenchClient, calls: number): Promise<Metrics> {
  await warmUp(client, Math.min(WARM_UP_CALLS, calls));
  const latencies = new Array<number>(calls);
  const serverCpu = await serverCpuMeter(client);
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const sent = performance.now();
    await checkedEcho(client, `hello ${i}`);
    latencies[i] = performance.now() - sent;
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    callsPerSec: calls / seconds,
    serverCpuUsPerCall: await serverCpu(calls),
    ...latencySummary(latencies),
  };
}

export async function pipelined(
  client: BenchClient,
  calls: number,
  inFlight: number,
): Promise<Metrics> {
  await warmUp(client, Math.min(WARM_UP_CALLS, calls));
  const latencies: number[] = [];
  let next = 0;
  const serverCpu = await serverCpuMeter(client);
  const started = performance.now();
  const lane = async () => {
    while (next < calls) {
      const i = next++;
      const sent = performance.now();
      await checkedEcho(client, `hello ${i}`);
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  const seconds = (performance.now() - started) / 1000;
  return {
    callsPerSec: calls / seconds,
    serverCpuUsPerCall: await serverCpu(calls),
    ...latencySummary(latencies),
  };
}

/** `count` echoes of `mib` MiB each, one after another; MiB/s counts the text echoed. */
export async function large(client: BenchClient, mib: number, count: number): Promise<Metrics> {
  await warmUp(client, 5);
  const size = Math.round(mib * 1024 * 1024);
  // Varied ASCII (no escaping), so a truncated or reordered reply cannot compare equal.
  const unit = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-_";
  const base = unit.repeat(Math.ceil(size / unit.length)).slice(0, size - 8);
  const started = performance.now();
  for (let i = 0; i < count; i++) await checkedEcho(client, `${base}${String(i).padStart(8, "0")}`);
  const seconds = (performance.now() - started) / 1000;
  const server = await procMemoryKb(client.serverPid());
  return {
    mibPerSec: (mib * count) / seconds,
    serverPeakRssMiB: (server?.hwm ?? Number.NaN) / 1024,
    clientPeakRssMiB: process.resourceUsage().maxRSS / 1024,
  };
}

/** Spawn → first tools/list answer, `spawns` times; the median. */
export async function coldStart(
  connect: () => Promise<BenchClient>,
  spawns: number,
): Promise<Metrics> {
  const times: number[] = [];
  for (let i = 0; i < spawns; i++) {
    const started = performance.now();
    const client = await connect();
    const tools = await client.listTools();
    times.push(performance.now() - started);
    await client.close();
    if (tools !== 1) throw new Error(`expected one tool, got ${tools}`);
  }
  return { coldStartMs: median(times) };
}
