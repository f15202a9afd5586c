/**
 * The official server suite, both revisions, against one server's own endpoint of a gateway
 * serving a whole config file (/servers/ours/mcp, our everything example over stdio, beside
 * another server): the verdict of scripts/conformance.mjs must be OK, as for the example itself.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { conformance } from "../helpers/conformance-run.js";
import { configDir, fixture, OUR_EVERYTHING, startConfigGateway } from "./gateway-run.js";
import { type Running, stop } from "./run-cli.js";

describe("gateway over a config file: the official server suite at /servers/<name>/mcp", {
  timeout: 300_000,
}, () => {
  let dir: string;
  let gateway: Running;
  let origin: string;

  before(async () => {
    let config: string;
    ({ dir, config } = configDir("gw-suite", {
      ours: OUR_EVERYTHING,
      plain: [fixture("gateway-plain-server")],
    }));
    ({ gateway, origin } = await startConfigGateway(config));
  });
  after(async () => {
    await stop(gateway);
    rmSync(dir, { recursive: true, force: true });
  });

  for (const set of ["2025-11-25", "2026-07-28"] as const) {
    it(`passes the ${set} requirements`, async () => {
      const { code, output } = await conformance(`${origin}/servers/ours/mcp`, set);
      assert.equal(code, 0, output);
      assert.match(output, /Verdict: OK/);
    });
  }
});
