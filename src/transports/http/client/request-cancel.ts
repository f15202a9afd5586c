import { LazyAbort } from "../../../protocol/lazy-abort.js";

/**
 * The cancellation of one outgoing request. An AbortController (and its EventTarget listener
 * bookkeeping) per request was a measurable share of the client's CPU per modern POST; this
 * holds one plain callback instead, and the AbortSignal is made only for the code that needs
 * one (fetch, the legacy session).
 */
export class RequestCancel extends LazyAbort {
  private listener: ((reason: unknown) => void) | undefined;

  /** Cancels, once: the current listener and the signal (if made) hear `reason`. */
  override abort(reason: unknown): boolean {
    const listener = this.listener;
    if (!super.abort(reason)) return false;
    this.listener = undefined;
    listener?.(reason);
    return true;
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
