/**
 * serveHttp keeps one of node's tick objects alive, so full collections never take the hidden
 * classes node's process.nextTick literal is built with (src/transports/http/tick-shape.ts).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const child = fileURLToPath(new URL("./tick-shape-child.js", import.meta.url));

describe("tick object kept by serveHttp", () => {
  it("is one of node's tick objects, and node's next one shares its class after full GCs", async () => {
    const { stdout } = await run(process.execPath, [
      "--expose-gc",
      "--allow-natives-syntax",
      child,
    ]);
    const outcome = JSON.parse(stdout) as { kept: boolean; symbols: string[]; sameClass: boolean };
    assert.equal(outcome.kept, true);
    assert.ok(outcome.symbols.includes("Symbol(async_id_symbol)"), outcome.symbols.join(", "));
    assert.equal(outcome.sameClass, true);
  });
});
