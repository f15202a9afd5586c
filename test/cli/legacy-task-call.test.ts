/**
 * `mcpwire call` on a 2025-11-25 task server: the official everything server's
 * simulate-research-query (task augmentation required) prints its report, with the task's
 * status lines (statusMessage included) on stderr.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import { runCli } from "./run-cli.js";

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

describe("mcpwire call on a legacy task server", () => {
  it("runs simulate-research-query as a task and shows its statuses", async () => {
    const run = await runCli([
      "call",
      "simulate-research-query",
      '{"topic":"tides"}',
      "--",
      process.execPath,
      EVERYTHING,
      "stdio",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /# Research Report: tides/);
    assert.match(run.stderr, /working Gathering sources/);
    assert.match(run.stderr, /completed/);
  });
});
