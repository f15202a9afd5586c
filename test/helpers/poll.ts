/**
 * The suite's one way to wait for something that happens by itself: poll, never sleep a fixed
 * time (a loaded machine makes those flaky, a quiet one slow), and fail naming what never
 * happened rather than hang. The timeout only turns a hang into a failure; nothing waits it out.
 */
const EVERY_MS = 5;
const TIMEOUT_MS = 15_000;

/**
 * Polls `check` until it gives a value (anything but undefined), which it returns; fails with
 * `timed out waiting for <what>` after `timeoutMs`.
 */
export async function waitFor<T>(
  what: string | (() => string),
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = TIMEOUT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, EVERY_MS));
  }
}

/** Polls until `condition` holds; fails naming `what` after `timeoutMs`. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string | (() => string) = "a condition",
  timeoutMs = TIMEOUT_MS,
): Promise<void> {
  await waitFor(what, async () => ((await condition()) ? true : undefined), timeoutMs);
}
