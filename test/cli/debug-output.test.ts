/**
 * The command's dropped errors (issue 25.E3): `call` to a tool the server lacks asks for the tool
 * list to name the ones there are; when that list fails too, the refusal stands alone, and with
 * MCPWIRE_DEBUG the failed listing is one "mcpwire debug:" line. Silent without it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCli } from "./run-cli.js";

const SERVER = new URL("../fixtures/broken-list-server.js", import.meta.url).pathname;

const callMissing = (debug: string | undefined) =>
  runCli(["call", "missing", "--", process.execPath, SERVER], { env: { MCPWIRE_DEBUG: debug } });

describe("MCPWIRE_DEBUG in the command", () => {
  it("shows the failed tool listing behind an unknown tool's refusal", async () => {
    const run = await callMissing("1");
    assert.notEqual(run.code, 0, run.stderr);
    assert.match(run.stderr, /^mcpwire debug: listing the tools to name them: .+$/m);
  });

  it("says nothing of it without MCPWIRE_DEBUG", async () => {
    const run = await callMissing(undefined);
    assert.notEqual(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /mcpwire debug/);
  });
});
