/**
 * Keeps one of node's `process.nextTick` tick objects alive for the life of the process, so
 * that V8 never loses the hidden classes such objects are built with.
 *
 * Why: node builds every tick object with one object literal whose first keys are computed
 * (symbols). V8 caches how such a key is added by the hidden class the object has just then, and
 * holds that class weakly. When a few full collections in a row find no tick object alive (an
 * idle moment, or the burst of collections while the first access token is verified), those
 * classes die, the next tick object is built with new ones, and the cache goes megamorphic for
 * good: from then on every nextTick (several per HTTP request inside node) pays a runtime call per
 * computed key, +15-20k instructions per request measured (bench/RESULTS.md, issue 15). One live
 * tick object keeps its classes, and with them the cache, alive.
 */
import { createHook } from "node:async_hooks";

let kept: object | undefined;
let tried = false;

/**
 * Catches one tick object (async_hooks hands it to an init hook, which is enabled only for the
 * one nextTick made here) and keeps it. Once per process; returns what was kept, if anything.
 */
export function keepTickObjectShape(): object | undefined {
  if (tried) return kept;
  tried = true;
  // Node's tick objects and V8's feedback only: other runtimes serving node:http (Bun, Deno)
  // build ticks their own way, and their async_hooks may be a stub.
  if (process.versions.bun !== undefined || "Deno" in globalThis) return undefined;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === "TickObject" && kept === undefined) kept = resource;
    },
  });
  hook.enable();
  try {
    process.nextTick(noop);
  } finally {
    hook.disable();
  }
  return kept;
}

function noop(): void {}
