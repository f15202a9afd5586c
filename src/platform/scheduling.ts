/**
 * Runs `task` in a later macrotask: setImmediate where the runtime has it (Node, Bun, Deno),
 * else a zero timeout (workerd, browsers), so timers and I/O run first either way.
 */
export const macrotask: (task: () => void) => void =
  typeof globalThis.setImmediate === "function"
    ? (task) => void setImmediate(task)
    : (task) => void setTimeout(task, 0);

/**
 * Lets the process exit while `timer` is pending, where timers are objects that can (Node, Bun,
 * Deno); workerd and browsers have no such notion and hand out numbers.
 */
export function unref(timer: ReturnType<typeof setTimeout> | ReturnType<typeof setInterval>): void {
  (timer as { unref?: () => void }).unref?.();
}
