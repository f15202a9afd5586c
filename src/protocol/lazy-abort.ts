/**
 * A cancellation whose AbortSignal is made only when someone asks for it. On Node 20 an
 * AbortController costs more to create than the rest of a small request's bookkeeping, and
 * most requests never need a signal; an abort that comes first is remembered and applied when
 * the signal is made, so a late reader still sees it aborted.
 */
export class LazyAbort {
  private abortedValue = false;
  private reasonValue: unknown;
  private controller: AbortController | undefined;

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

  /** Like AbortController.abort: the first reason wins. Returns false if already aborted. */
  abort(reason: unknown): boolean {
    if (this.abortedValue) return false;
    this.abortedValue = true;
    this.reasonValue = reason;
    this.controller?.abort(reason);
    return true;
  }
}
