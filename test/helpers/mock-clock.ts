/**
 * For tests whose subject is time (timeouts, expiry, back-off): node:test's mock timers stand in
 * for `setTimeout` and `Date`, so the test moves the clock itself instead of sleeping. A loaded
 * machine then cannot make the test flaky, nor a long production wait make it slow.
 *
 * `setImmediate` stays real: memory transports deliver on it, so `settle()` lets messages flow
 * while the clock stands still.
 */
import type { TestContext } from "node:test";

export interface MockClock {
  /** Lets everything already under way run (messages, replies, promise chains); no time passes. */
  settle(): Promise<void>;
  /** Moves the clock `ms` forward, firing the timers due on the way, then settles. */
  advance(ms: number): Promise<void>;
  /**
   * Lets real I/O (sockets, HTTP on 127.0.0.1) run, the clock standing still, until `condition`
   * holds; fails naming `what` after 15 real seconds.
   */
  until(condition: () => boolean, what: string): Promise<void>;
}

const TURNS = 20;

export function mockClock(t: TestContext): MockClock {
  t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
  const settle = async () => {
    for (let turn = 0; turn < TURNS; turn++) await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    settle,
    async until(condition, what) {
      // performance.now() is the real clock: mock timers leave it alone.
      const deadline = performance.now() + 15_000;
      while (!condition()) {
        if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    async advance(ms) {
      await settle();
      t.mock.timers.tick(ms);
      await settle();
    },
  };
}

export type Outcome<T> =
  | { state: "pending" }
  | { state: "fulfilled"; value: T }
  | { state: "rejected"; error: unknown };

/** Watches `promise` without awaiting it (the clock must move first): `now()` says where it stands. */
export function track<T>(promise: Promise<T>): { now(): Outcome<T> } {
  let outcome: Outcome<T> = { state: "pending" };
  promise.then(
    (value) => (outcome = { state: "fulfilled", value }),
    (error: unknown) => (outcome = { state: "rejected", error }),
  );
  return { now: () => outcome };
}

/** The error `outcome` was rejected with; fails the test when it is not rejected. */
export function rejection(outcome: Outcome<unknown>): unknown {
  if (outcome.state !== "rejected")
    throw new Error(`expected a rejection, the promise is ${outcome.state}`);
  return outcome.error;
}
