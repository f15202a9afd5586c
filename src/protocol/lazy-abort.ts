/**
 * A cancellation that can be listened to without an AbortSignal: what RequestOptions.abort
 * takes. LazyAbort is one.
 */
export interface AbortSource {
  readonly aborted: boolean;
  readonly reason: unknown;
  /** An AbortSignal that follows this cancellation, made on first read. */
  readonly signal: AbortSignal;
  /**
   * Calls `listener` once, when aborted (at once if it already is). Returns the way to stop
   * listening.
   */
  whenAborted(listener: (reason: unknown) => void): () => void;
}

/**
 * A cancellation whose AbortSignal is made only when someone asks for it. On Node 20 an
 * AbortController costs more to create than the rest of a small request's bookkeeping, and
 * most requests never need a signal; an abort that comes first is remembered and applied when
 * the signal is made, so a late reader still sees it aborted. Listeners that need no signal
 * (whenAborted) are plain callbacks.
 */
export class LazyAbort implements AbortSource {
  private abortedValue = false;
  private reasonValue: unknown;
  private controller: AbortController | undefined;
  private listeners: ((reason: unknown) => void)[] | undefined;

  get aborted(): boolean {
    return this.abortedValue;
  }

  get reason(): unknown {
    return this.reasonValue;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedValue) this.controller.abort(this.reasonValue);
    }
    return this.controller.signal;
  }

  whenAborted(listener: (reason: unknown) => void): () => void {
    if (this.abortedValue) {
      listener(this.reasonValue);
      return noop;
    }
    this.listeners ??= [];
    const listeners = this.listeners;
    listeners.push(listener);
    return () => {
      const at = listeners.indexOf(listener);
      if (at !== -1) listeners.splice(at, 1);
    };
  }

  /** Like AbortController.abort: the first reason wins. Returns false if already aborted. */
  abort(reason: unknown): boolean {
    if (this.abortedValue) return false;
    this.abortedValue = true;
    this.reasonValue = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener(reason);
    return true;
  }
}

function noop(): void {}

/** whenAborted for a plain AbortSignal. */
export function listenForAbort(
  signal: AbortSignal,
  listener: (reason: unknown) => void,
): () => void {
  if (signal.aborted) {
    listener(signal.reason);
    return noop;
  }
  const heard = () => listener(signal.reason);
  signal.addEventListener("abort", heard, { once: true });
  return () => signal.removeEventListener("abort", heard);
}
