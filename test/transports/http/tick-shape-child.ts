/**
 * Child process of tick-shape.test.ts (run with --expose-gc --allow-natives-syntax): serves HTTP,
 * answers one request, runs full collections while no tick object is alive, then prints whether
 * node's next tick object still has the hidden class of the one serveHttp kept.
 */
import { createHook } from "node:async_hooks";
import { McpServer } from "../../../src/server/index.js";
import { serveHttp } from "../../../src/transports/http/node-adapter.js";
import { keepTickObjectShape } from "../../../src/transports/http/tick-shape.js";

/** The tick object node builds for the next process.nextTick (async_hooks hands it over). */
function nextTickObject(): object | undefined {
  let found: object | undefined;
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === "TickObject") found ??= resource as object;
    },
  }).enable();
  process.nextTick(() => {});
  hook.disable();
  return found;
}

/**
 * V8's %HaveSameMap (the same hidden class), compiled at run time: TypeScript cannot parse the
 * natives syntax that --allow-natives-syntax enables.
 */
const haveSameMap = new Function("a", "b", "return %HaveSameMap(a, b);") as (
  a: object,
  b: object,
) => boolean;

const served = await serveHttp(new McpServer({ serverInfo: { name: "tick", version: "1.0.0" } }));
const kept = keepTickObjectShape();
const answer = await fetch(served.url, { method: "GET" });
await answer.arrayBuffer();
await served.close();
// From a macrotask: no tick object is queued or running while the collections run.
setImmediate(() => {
  const gc = (globalThis as { gc?: () => void }).gc!;
  for (let i = 0; i < 6; i++) gc();
  const fresh = nextTickObject();
  const sameClass = fresh !== undefined && kept !== undefined && haveSameMap(kept, fresh);
  const symbols = kept ? Object.getOwnPropertySymbols(kept).map(String) : [];
  process.stdout.write(`${JSON.stringify({ kept: kept !== undefined, symbols, sameClass })}\n`);
});
