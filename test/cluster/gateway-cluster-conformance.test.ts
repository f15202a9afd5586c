/**
 * Two `mcpwire gateway --config --redis` instances behind round-robin nginx (no affinity), our
 * everything example over stdio behind each: the official server suite, both revisions, passes
 * against the balancer at /servers/ours/mcp, as it does against one gateway
 * (test/cli/gateway-many-conformance.test.ts). The suite's multi round-trip retries, tasks and
 * legacy sessions land on either instance.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { configDir, OUR_EVERYTHING, startConfigGateway } from "../cli/gateway-run.js";
import { type Running, stop } from "../cli/run-cli.js";
import { conformance } from "../helpers/conformance-run.js";
import { type Nginx, startNginx } from "../helpers/nginx.js";
import { type SharedRedis, sharedRedis } from "../helpers/redis.js";

describe("two gateway instances on Redis behind nginx: the official server suite", {
  timeout: 300_000,
}, () => {
  let dir: string;
  let redis: SharedRedis;
  let gateways: Running[] = [];
  let nginx: Nginx;

  before(async () => {
    let config: string;
    ({ dir, config } = configDir("gw-cluster-suite", { ours: OUR_EVERYTHING }));
    redis = await sharedRedis("the gateway cluster conformance test");
    const flags = ["--redis", redis.url, "--redis-prefix", redis.prefix, "--server", "ours,"];
    const started = await Promise.all([
      startConfigGateway(config, flags),
      startConfigGateway(config, flags),
    ]);
    gateways = started.map((one) => one.gateway);
    nginx = await startNginx(
      "the gateway cluster conformance test",
      started.map((one) => Number(new URL(one.origin).port)),
    );
  });
  after(async () => {
    await nginx?.stop();
    await Promise.all(gateways.map((gateway) => stop(gateway)));
    await redis?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const set of ["2025-11-25", "2026-07-28"] as const) {
    it(`passes the ${set} requirements through the balancer`, async () => {
      const { code, output } = await conformance(`${nginx.origin}/servers/ours/mcp`, set);
      assert.equal(code, 0, output);
      assert.match(output, /Verdict: OK/);
    });
  }
});
