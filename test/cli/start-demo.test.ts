import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Running, startProcess, waitFor } from "./run-cli.js";

const START = new URL("../../src/cli/start-demo.js", import.meta.url).pathname;

describe("npm start (start-demo)", () => {
  it("runs the everything server and prints how to try it, then stops on SIGINT", async () => {
    const previous = process.env.PORT;
    process.env.PORT = "0";
    let demo: Running;
    try {
      demo = startProcess(process.execPath, [START]);
    } finally {
      if (previous === undefined) delete process.env.PORT;
      else process.env.PORT = previous;
    }
    const url = await waitFor(
      "the hint",
      () => /npx mcpwire discover (\S+)/.exec(demo.stdout())?.[1],
    );
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: "{}",
    });
    assert.equal(response.status >= 400 && response.status < 500, true);
    await response.body?.cancel();
    demo.child.kill("SIGINT");
    const run = await demo.done;
    assert.equal(run.code, 0, run.stderr);
  });
});
