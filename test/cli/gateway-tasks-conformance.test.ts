/**
 * The tasks extension through the gateway: the official suite's nine tasks-* server scenarios
 * (conformance/task-scenarios.json, those scripts/conformance.mjs requires of the 2026-07-28
 * run) pass against `mcpwire gateway`
 * fronting the everything example over stdio, as they pass against the example itself.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { conformanceScenario, TASK_SCENARIOS } from "../helpers/conformance-run.js";
import { OUR_EVERYTHING, type RunningGateway, startGateway } from "./gateway-run.js";
import { stop } from "./run-cli.js";

describe("mcpwire gateway: the official tasks scenarios", { timeout: 300_000 }, () => {
  let running: RunningGateway;

  before(async () => {
    running = await startGateway(OUR_EVERYTHING);
  });
  after(() => stop(running.gateway));

  for (const scenario of TASK_SCENARIOS) {
    it(`passes ${scenario}`, async () => {
      const { checks, output } = await conformanceScenario(running.url, scenario);
      assert.ok(checks.length > 0, `the scenario left no checks:\n${output}`);
      const failed = checks.filter((check) => check.status === "FAILURE");
      assert.deepEqual(
        failed.map((check) => `${check.id}: ${check.errorMessage ?? ""}`),
        [],
        output,
      );
      assert.ok(checks.some((check) => check.status === "SUCCESS"));
    });
  }
});
