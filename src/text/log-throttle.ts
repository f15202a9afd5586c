import { unref } from "../platform/scheduling.js";

/**
 * Keeps a peer from flooding our logs. Whatever a peer can cause over and over (replies to ids
 * we never sent, unreadable messages, streams it does not read) would otherwise cost one log
 * line each: a cheap way to fill a disk or bury the lines that matter. Per kind, the first
 * entry of a window goes out at once; repeats inside the window are only counted, and when the
 * window closes one summary says how many there were.
 *
 * Kinds must come from a fixed set chosen by our code (never from peer text): the table holds
 * one entry per kind with an open window.
 */

interface LogThrottleOptions<T> {
  /** Length of a window (ms). 0 or less turns throttling off: every entry is emitted. */
  intervalMs: number;
  /** Where entries (and summaries) go. */
  emit(entry: T): void;
  /** The entry that reports `suppressed` repeats of `kind` within the last `intervalMs`. */
  summary(kind: string, suppressed: number, intervalMs: number): T;
}

interface Window {
  suppressed: number;
  timer: NodeJS.Timeout;
}

export class LogThrottle<T> {
  private readonly options: LogThrottleOptions<T>;
  private readonly windows = new Map<string, Window>();

  constructor(options: LogThrottleOptions<T>) {
    this.options = options;
  }

  /** Emits `entry` unless another `kind` entry went out less than a window ago. */
  log(kind: string, entry: T): void {
    const { intervalMs } = this.options;
    if (intervalMs <= 0) {
      this.options.emit(entry);
      return;
    }
    const open = this.windows.get(kind);
    if (open) {
      open.suppressed++;
      return;
    }
    const timer = setTimeout(() => this.close(kind), intervalMs);
    // A pending summary must not keep the process alive.
    unref(timer);
    this.windows.set(kind, { suppressed: 0, timer });
    this.options.emit(entry);
  }

  /** Closes every open window now, emitting its summary (at shutdown: nothing goes unsaid). */
  flush(): void {
    for (const kind of [...this.windows.keys()]) this.close(kind);
  }

  private close(kind: string): void {
    const window = this.windows.get(kind);
    if (!window) return;
    clearTimeout(window.timer);
    this.windows.delete(kind);
    if (window.suppressed > 0) {
      this.options.emit(this.options.summary(kind, window.suppressed, this.options.intervalMs));
    }
  }
}
