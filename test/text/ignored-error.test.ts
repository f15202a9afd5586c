/**
 * Errors mcpwire drops on purpose (a listener that throws, a DELETE to a server that is gone)
 * are silent by default and one line each on stderr with MCPWIRE_DEBUG set, a peer's escape
 * sequences shown, not sent (issue 25.E3). Real subprocesses, a real HTTP server.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startProcess } from "../cli/run-cli.js";

const FIXTURE = new URL("../fixtures/ignored-errors.js", import.meta.url).pathname;

async function run(mode: string, debug: string | undefined) {
  const result = await startProcess(process.execPath, [FIXTURE, mode], {
    env: { MCPWIRE_DEBUG: debug },
  }).done;
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "done\n");
  return result.stderr;
}

describe("errors dropped on purpose", () => {
  it("a throwing subscription listener: one debug line with MCPWIRE_DEBUG, escapes shown", async () => {
    const stderr = await run("listener", "1");
    assert.equal(
      stderr,
      "mcpwire debug: a subscription event listener threw: listener broke \\x1b[31mred\n",
    );
  });

  it("a legacy session's DELETE to a server that is gone: one debug line", async () => {
    const stderr = await run("delete", "1");
    assert.match(stderr, /^mcpwire debug: ending the legacy session \(DELETE\): .+\n$/);
  });

  for (const debug of [undefined, "", "0"]) {
    it(`silent with MCPWIRE_DEBUG=${JSON.stringify(debug)}`, async () => {
      assert.equal(await run("listener", debug), "");
      assert.equal(await run("delete", debug), "");
    });
  }
});
