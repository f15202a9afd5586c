/**
 * Three everything instances sharing one Redis, behind round-robin nginx (no affinity): the
 * official server conformance suite for the modern revision (2026-07-28) passes against the
 * balancer, and passes again after one instance was killed with SIGKILL (nginx routes around
 * it; nothing the others need lived only in the dead one).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { conformance } from "../helpers/conformance-run.js";
import { type EverythingInstance, startCluster } from "../helpers/everything-instances.js";
import { type Nginx, startNginx } from "../helpers/nginx.js";
import { type PrivateRedis, startPrivateRedis } from "../helpers/redis.js";

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

  const verdict = (run: { code: number | null; output: string }) => {
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /Verdict: OK/);
  };

  it("passes the official server suite (2026-07-28) through the balancer", async () => {
    verdict(await conformance(`${nginx.origin}/mcp`, "2026-07-28"));
  });

  it("passes it again after one instance was killed with SIGKILL", async () => {
    await instances[1]!.kill();
    verdict(await conformance(`${nginx.origin}/mcp`, "2026-07-28"));
  });
});
