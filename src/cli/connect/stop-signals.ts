import { constants } from "node:os";

/**
 * The signals that ask a command to stop: Ctrl-C (SIGINT), a supervisor or `kill` (SIGTERM),
 * and a closed terminal (SIGHUP). Each verb treats them alike: cancel what is in flight, close
 * the connection, end a stdio server's whole process tree, then exit with 128 + the signal's
 * number, as shells report a command a signal stopped. Without a handler Node would die on the
 * spot (no 'exit' hook runs), leaving a stdio server that ignores EOF running.
 */
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

export type StopSignal = (typeof STOP_SIGNALS)[number];

/** 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP. */
export function exitCodeFor(signal: StopSignal): number {
  return 128 + (constants.signals[signal] ?? 0);
}

/** Calls `handler` for each stop signal until the returned function is called. */
export function onStopSignals(handler: (signal: StopSignal) => void): () => void {
  const listeners = STOP_SIGNALS.map((signal) => {
    const listener = () => handler(signal);
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
}
