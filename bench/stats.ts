/** Small statistics and formatting helpers shared by the trials and the harness. */

export function percentile(sorted: ArrayLike<number>, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index]!;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** p50 and p99 of latencies in milliseconds. */
export function latencySummary(latenciesMs: number[]): { p50: number; p99: number } {
  const sorted = Float64Array.from(latenciesMs).sort();
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

/** Three significant digits, without exponent notation for the sizes we print. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return "—";
  const magnitude = Math.abs(value);
  if (magnitude >= 100) return Math.round(value).toString();
  if (magnitude >= 10) return value.toFixed(1);
  if (magnitude >= 1) return value.toFixed(2);
  return value.toPrecision(3);
}

/**
 * CPU seconds (user + system, all threads) a process has used, from /proc/<pid>/stat, or
 * undefined once it is gone. On a loaded machine this moves far less than wall-clock
 * throughput does: it counts the work, not the waiting for a core.
 */
export async function procCpuSeconds(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  const { readFile } = await import("node:fs/promises");
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // Fields after the command (which may hold spaces), from the 3rd: utime is the 14th, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return ticks / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

/** Kilobytes from /proc/<pid>/status (VmRSS, VmHWM), or undefined once the process is gone. */
export async function procMemoryKb(
  pid: number | undefined,
): Promise<{ rss: number; hwm: number } | undefined> {
  if (pid === undefined) return undefined;
  const { readFile } = await import("node:fs/promises");
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const field = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
    return { rss: field("VmRSS"), hwm: field("VmHWM") };
  } catch {
    return undefined;
  }
}
