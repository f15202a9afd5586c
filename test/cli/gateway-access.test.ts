/**
 * Who may talk to `mcpwire gateway`: the bearer scheme is matched case-insensitively (the token
 * is not), the token may come from --token-file (argv shows in `ps`), and with --cors only the
 * gateway's own origin is let in by default, not every page on another loopback port; an
 * explicit --allowed-origin still works.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { mcpHeaders, request } from "../transports/http/http-helpers.js";
import { fixture, startGateway } from "./gateway-run.js";
import { stop } from "./run-cli.js";
import { runInProcess } from "./run-in-process.js";

const CHILD = [fixture("gateway-plain-server")];
const dir = mkdtempSync(join(tmpdir(), "mcpwire-gateway-access-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** POSTs server/discover with `headers` added; returns the status (the body is drained). */
async function discover(url: string, headers: Record<string, string>): Promise<number> {
  const body = request("server/discover");
  const response = await fetch(url, {
    method: "POST",
    headers: { ...mcpHeaders(body), ...headers },
    body: JSON.stringify(body),
  });
  await response.body?.cancel();
  return response.status;
}

describe("gateway bearer token", () => {
  it("reads --token-file and accepts the Bearer scheme in any case", async () => {
    const file = join(dir, "token");
    writeFileSync(file, "s3cret-from-file\n", { mode: 0o600 });
    const { gateway, url } = await startGateway(CHILD, ["--token-file", file]);
    try {
      assert.equal(await discover(url, {}), 401);
      for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
        assert.equal(
          await discover(url, { Authorization: `${scheme} s3cret-from-file` }),
          200,
          scheme,
        );
      }
      for (const wrong of [
        "Bearer S3CRET-FROM-FILE",
        "Bearer s3cret",
        "Basic s3cret-from-file",
        "Bearers3cret-from-file",
        "Bearer",
        "s3cret-from-file",
      ]) {
        assert.equal(await discover(url, { Authorization: wrong }), 401, wrong);
      }
      assert.doesNotMatch(gateway.stderr(), /s3cret/);
    } finally {
      await stop(gateway);
    }
  });

  it("refuses --token with --token-file, and an empty token file", async () => {
    const file = join(dir, "token-both");
    writeFileSync(file, "x");
    const both = await runInProcess([
      "gateway",
      "--token",
      "x",
      "--token-file",
      file,
      "--",
      "true",
    ]);
    assert.equal(both.code, 2, both.stderr);
    assert.match(both.stderr, /--token or --token-file/);
    const empty = join(dir, "token-empty");
    writeFileSync(empty, "\n");
    const run = await runInProcess(["gateway", "--token-file", empty, "--", "true"]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /is empty/);
  });
});

describe("gateway --cors origins", () => {
  it("lets in only the gateway's own origin by default", async () => {
    const { gateway, url } = await startGateway(CHILD, ["--cors"]);
    try {
      const own = new URL(url);
      assert.equal(await discover(url, { Origin: own.origin }), 200);
      const otherPort = Number(own.port) === 65535 ? 65534 : Number(own.port) + 1;
      for (const origin of [
        `http://127.0.0.1:${otherPort}`,
        `http://localhost:${otherPort}`,
        "http://localhost:3000",
        "http://evil.example",
      ]) {
        assert.equal(await discover(url, { Origin: origin }), 403, origin);
      }
      // The preflight a page on another local port would send is refused too.
      const preflight = await fetch(url, {
        method: "OPTIONS",
        headers: {
          Origin: "http://localhost:3000",
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "content-type",
        },
      });
      await preflight.body?.cancel();
      assert.equal(preflight.status, 403);
    } finally {
      await stop(gateway);
    }
  });

  it("still lets in an explicit --allowed-origin (and only it)", async () => {
    const { gateway, url } = await startGateway(CHILD, [
      "--cors",
      "--allowed-origin",
      "http://localhost:5173",
    ]);
    try {
      assert.equal(await discover(url, { Origin: "http://localhost:5173" }), 200);
      assert.equal(await discover(url, { Origin: "http://localhost:3000" }), 403);
      const preflight = await fetch(url, {
        method: "OPTIONS",
        headers: { Origin: "http://localhost:5173", "Access-Control-Request-Method": "POST" },
      });
      await preflight.body?.cancel();
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get("access-control-allow-origin"), "http://localhost:5173");
    } finally {
      await stop(gateway);
    }
  });
});
