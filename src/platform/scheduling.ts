/**
 * Runs `task` in a later macrotask: setImmediate where the runtime has it (Node, Bun, Deno),
 * else a zero timeout (workerd, browsers), so timers and I/O run first either way.
 */
export const macrotask: (task: () => void) => void =
  typeof globalThis.setImmediate === "function"
    ? (task) => void setImmediate(task)
    : (task) => void setTimeout(task, 0);
