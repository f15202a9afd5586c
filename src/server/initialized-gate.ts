import { InvalidRequestError } from "../jsonrpc/errors.js";

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Holds a legacy session's server-to-client requests until the client's
 * `notifications/initialized`: "The server SHOULD NOT send requests other than pings and
 * logging before receiving the initialized notification" (2025-11-25 basic/lifecycle.mdx,
 * Initialization). Waiting rather than failing at once is what that implies: a client may
 * pipeline a call right behind its `initialized` (HTTP POSTs can even overtake each other), and
 * the question is only held back, not wrong. A client that never sends it gets a clear error
 * once the wait passes the session's request timeout.
 */
export class InitializedGate {
  private readonly waiters = new Set<Waiter>();

  /** `initialized` arrived: every held request may go out. */
  open(): void {
    for (const waiter of this.waiters) waiter.resolve();
    this.waiters.clear();
  }

  /** The session ended or started afresh: nothing held may go out any more. */
  abandon(error: unknown): void {
    for (const waiter of this.waiters) waiter.reject(error);
    this.waiters.clear();
  }

  /**
   * Resolves once the gate opens; rejects when `signal` aborts (the request was cancelled or
   * the session is ending) or after `timeoutMs`.
   */
  wait(method: string, signal: AbortSignal, timeoutMs: number): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.waiters.delete(waiter);
        outcome();
      };
      const waiter: Waiter = {
        resolve: () => settle(resolve),
        reject: (error) => settle(() => reject(error)),
      };
      const onAbort = () => waiter.reject(signal.reason);
      const timer = setTimeout(() => {
        waiter.reject(
          new InvalidRequestError(
            `The client has not sent notifications/initialized (waited ${timeoutMs} ms), so the server may not send it ${method} yet`,
          ),
        );
      }, timeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }
}
