/**
 * For memory measurements only: when started with `--expose-gc` and BENCH_GC=1, a server runs a
 * full garbage collection on SIGUSR2, so RSS read afterwards counts live data rather than garbage
 * that happened not to be collected yet, and reports the V8 heap then in use (bytes). Installed
 * the same way in every server the bench compares.
 */
export function installGcHook(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (process.env.BENCH_GC !== "1" || !gc) return;
  process.on("SIGUSR2", () => {
    gc();
    process.stderr.write(`bench-gc-done ${process.memoryUsage().heapUsed}\n`);
  });
}
