/**
 * The everything example's progress says where the work is (issue 25.D12): "Starting",
 * "Halfway there", "Done" at 0, 50 and 100 of 100, where it once said "Completed step 0 of 100"
 * before anything had run. Seen as a user sees it, through `mcpwire call` over stdio.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EVERYTHING_SERVER, runCli } from "./run-cli.js";

describe("the everything example's progress", () => {
  it("reads as what happened at each step", async () => {
    const run = await runCli([
      "call",
      "test_tool_with_progress",
      "--",
      process.execPath,
      EVERYTHING_SERVER,
      "--stdio",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "Progress test completed\n");
    assert.deepEqual(run.stderr.split("\n"), [
      "progress 0/100 Starting",
      "progress 50/100 Halfway there",
      "progress 100/100 Done",
      "",
    ]);
  });
});
