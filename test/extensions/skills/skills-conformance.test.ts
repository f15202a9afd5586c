/**
 * The official suite's Skills scenarios (conformance/skills-scenarios.json) against the
 * everything example, which serves examples/skills: each passes with every check run. The
 * suite skips all of a scenario's checks when a server does not declare the extension, and
 * calls that a pass; here a skipped check is a failure.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { conformanceScenario, SKILLS_SCENARIOS } from "../../helpers/conformance-run.js";
import { type EverythingInstance, startEverything } from "../../helpers/everything-instances.js";

describe("the official Skills (SEP-2640) scenarios", { timeout: 120_000 }, () => {
  let server: EverythingInstance;
  before(async () => {
    server = await startEverything([]);
  });
  after(() => server.stop());

  it("are the three the suite has", () => {
    assert.deepEqual([...SKILLS_SCENARIOS].sort(), [
      "sep-2640-skills-directory",
      "sep-2640-skills-enumeration",
      "sep-2640-skills-manifest",
    ]);
  });

  for (const scenario of SKILLS_SCENARIOS) {
    it(`passes ${scenario} with no check skipped`, async () => {
      const { checks, output } = await conformanceScenario(server.url, scenario);
      assert.ok(checks.length > 0, `the scenario left no checks:\n${output}`);
      const notPassed = checks.filter((check) => check.status !== "SUCCESS");
      assert.deepEqual(
        notPassed.map((check) => `${check.status} ${check.id}: ${check.errorMessage ?? ""}`),
        [],
        output,
      );
    });
  }
});
