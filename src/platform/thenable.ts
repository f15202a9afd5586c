/**
 * Whether a value a handler or hook returned is a promise (or another thenable) rather than the
 * answer itself: the hot paths answer a plain value without a promise per layer.
 */
export function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}
