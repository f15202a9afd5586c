/**
 * Three everything instances sharing one Redis, behind round-robin nginx (no affinity): the
 * official server conformance suite for the modern revision (2026-07-28) passes against the
 * balancer, and passes again after one instance was killed with SIGKILL (nginx routes around
 * it; nothing the others need lived only in the dead one).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it, type TestContext } from "node:test";
import { conformance } from "../helpers/conformance-run.js";
import { type EverythingInstance, startCluster } from "../helpers/everything-instances.js";
import { type Nginx, startNginx } from "../helpers/nginx.js";
import { type PrivateRedis, startPrivateRedis } from "../helpers/redis.js";

/**
 * Scenarios whose probes the suite itself bounds by wall-clock time (server-stateless aborts a
 * tools/call after 500 ms and a listen stream after 800 ms). On a machine busy with the rest of
 * the test suite, a hop through nginx can miss that; such a run is tried once more, and only
 * when nothing else failed.
 */
const CLIENT_TIMED = new Set(["server-stateless"]);

/** The scenarios a run reports failing ("- server 2026-07-28: <name> fail"). */
function failedScenarios(output: string): string[] {
  return [...output.matchAll(/^- server \S+: (\S+) (?:fail|missing)$/gm)].map((match) => match[1]!);
}

describe("a three-instance cluster behind nginx, modern revision", { timeout: 180_000 }, () => {
  let redis: PrivateRedis;
  let instances: EverythingInstance[] = [];
  let nginx: Nginx;

  before(async () => {
    redis = await startPrivateRedis("the modern cluster conformance test");
    const prefix = `conformance-${randomBytes(4).toString("hex")}:`;
    instances = await startCluster(3, redis.url, prefix);
    nginx = await startNginx(
      "the modern cluster conformance test",
      instances.map((instance) => instance.port),
    );
  });

  after(async () => {
    await nginx?.stop();
    await Promise.all(instances.map((instance) => instance.stop()));
    await redis?.stop();
  });

  const passes = async (t: TestContext) => {
    let run = await conformance(`${nginx.origin}/mcp`, "2026-07-28");
    const failed = failedScenarios(run.output);
    if (run.code !== 0 && failed.length > 0 && failed.every((name) => CLIENT_TIMED.has(name))) {
      t.diagnostic(`${failed.join(", ")} missed the suite's own time limits; running it again`);
      run = await conformance(`${nginx.origin}/mcp`, "2026-07-28");
    }
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /Verdict: OK/);
  };

  it("passes the official server suite (2026-07-28) through the balancer", async (t) => {
    await passes(t);
  });

  it("passes it again after one instance was killed with SIGKILL", async (t) => {
    await instances[1]!.kill();
    await passes(t);
  });
});
