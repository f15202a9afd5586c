import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);
const main = new URL("../../src/cli/main.js", import.meta.url).pathname;

describe("mcpwire command", () => {
  it("prints the package version", async () => {
    const expected = JSON.parse(
      readFileSync(new URL("../../../package.json", import.meta.url), "utf8"),
    ).version;
    const { stdout } = await run(process.execPath, [main, "--version"]);
    assert.equal(stdout.trim(), expected);
  });

  it("fails with one clear line and exit code 2 on an unknown verb", async () => {
    await assert.rejects(run(process.execPath, [main, "frobnicate"]), (error: unknown) => {
      const failure = error as { code: number; stderr: string; stdout: string };
      assert.equal(failure.code, 2);
      assert.equal(failure.stdout, "");
      assert.match(failure.stderr, /^mcpwire: unknown command "frobnicate"/);
      return true;
    });
  });
});
