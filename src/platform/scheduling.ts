/** A pending macrotask, for cancelMacrotask (an Immediate, or a timer id or object). */
export type MacrotaskHandle = unknown;

const hasImmediate = typeof globalThis.setImmediate === "function";

/**
 * Runs `task` in a later macrotask: setImmediate where the runtime has it (Node, Bun, Deno),
 * else a zero timeout (workerd, browsers), so timers and I/O run first either way.
 */
export const macrotask: (task: () => void) => MacrotaskHandle = hasImmediate
  ? (task) => setImmediate(task)
  : (task) => setTimeout(task, 0);

/** Cancels a macrotask not yet run (a no-op once it has). */
export const cancelMacrotask: (handle: MacrotaskHandle) => void = hasImmediate
  ? (handle) => clearImmediate(handle as ReturnType<typeof setImmediate>)
  : (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>);

/**
 * Lets the process exit while `timer` is pending, where timers are objects that can (Node, Bun,
 * Deno); workerd and browsers have no such notion and hand out numbers.
 */
export function unref(timer: ReturnType<typeof setTimeout> | ReturnType<typeof setInterval>): void {
  (timer as { unref?: () => void }).unref?.();
}
