/**
 * The cancellation of one outgoing request. An AbortController (and its EventTarget listener
 * bookkeeping) per request was a measurable share of the client's CPU per modern POST; this
 * holds one plain callback instead and makes a real AbortSignal only for the code that needs
 * one (fetch, the legacy session).
 */
export class RequestCancel {
  private abortedValue = false;
  private reasonValue: unknown;
  private controller: AbortController | undefined;
  private listener: ((reason: unknown) => void) | undefined;

  get aborted(): boolean {
    return this.abortedValue;
  }

  get reason(): unknown {
    return this.reasonValue;
  }

  /** An AbortSignal that follows this cancellation (made on first use). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedValue) this.controller.abort(this.reasonValue);
    }
    return this.controller.signal;
  }

  /** Cancels, once: the current listener and the signal (if made) hear `reason`. */
  abort(reason: unknown): void {
    if (this.abortedValue) return;
    this.abortedValue = true;
    this.reasonValue = reason;
    const listener = this.listener;
    this.listener = undefined;
    listener?.(reason);
    this.controller?.abort(reason);
  }

  /**
   * Who to tell on cancellation: one listener at a time (the HTTP request now in flight).
   * Returns the way to forget it again (a no-op once another listener took its place).
   */
  onAbort(listener: (reason: unknown) => void): () => void {
    this.listener = listener;
    return () => {
      if (this.listener === listener) this.listener = undefined;
    };
  }
}
