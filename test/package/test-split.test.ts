/**
 * `npm test`'s two halves (scripts/test-split.mjs): every compiled test file is in exactly one;
 * a file that starts processes, itself or through a helper it imports, is e2e; one that runs
 * all in this process is unit.
 */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const REPO = resolve(fileURLToPath(import.meta.url), "../../../..");
const TESTS = join(REPO, "dist", "test");

interface TestSplit {
  testFiles(dir: string): string[];
  splitTests(testRoot: string): { unit: string[]; e2e: string[] };
}
const split = (await import(
  pathToFileURL(join(REPO, "scripts", "test-split.mjs")).href
)) as TestSplit;

describe("npm test's unit and e2e halves", () => {
  const { unit, e2e } = split.splitTests(TESTS);
  const at = (path: string) => join(TESTS, path);

  it("puts every test file in exactly one half", () => {
    assert.deepEqual([...unit, ...e2e].sort(), split.testFiles(TESTS));
    assert.ok(unit.length > 50 && e2e.length > 50, `${unit.length} unit, ${e2e.length} e2e`);
  });

  it("sends subprocesses and services to e2e, through a helper too", () => {
    // spawns the CLI through run-cli.ts; runs the stdio example; needs Redis; nginx.
    for (const file of [
      "cli/usage.test.js",
      "transports/stdio/client.test.js",
      "redis/task-store.test.js",
      "cluster/legacy-cluster-nginx.test.js",
    ]) {
      assert.ok(e2e.includes(at(file)), `${file} is e2e`);
    }
  });

  it("keeps in-process tests in unit", () => {
    for (const file of ["protocol/session.test.js", "client/modern.test.js"]) {
      assert.ok(unit.includes(at(file)), `${file} is unit`);
    }
  });
});
