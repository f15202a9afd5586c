/**
 * `mcpwire gateway`'s health check, GET /healthz: 200 with {status, pid, era, restarts,
 * uptimeSeconds} while the child runs, 503 from its crash until its successor has answered the
 * handshake; no token needed (the MCP endpoint still wants one) and nothing secret in it; the
 * Host and Origin checks apply; only GET and HEAD.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { waitFor } from "../helpers/poll.js";
import { fixture, type RunningGateway, startGateway } from "./gateway-run.js";
import { stop } from "./run-cli.js";

const TOKEN = "health-check-secret-4711";

/** A raw GET, so that the Host header can be anything. */
function get(
  url: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<{ status: number; body: string; type: string | undefined; allow: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () =>
        resolve({
          status: res.statusCode!,
          body,
          type: res.headers["content-type"],
          allow: res.headers.allow,
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

describe("gateway health check", () => {
  let dir: string;
  let run: RunningGateway;
  let health: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "mcpwire-health-"));
    run = await startGateway(
      [fixture("slow-restart-server"), join(dir, "started"), join(dir, "release")],
      ["--token", TOKEN],
    );
    health = new URL("/healthz", run.url).href;
  });
  after(async () => {
    await stop(run.gateway);
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 200 without a token and says nothing secret; the endpoint still wants one", async () => {
    const answer = await get(health);
    assert.equal(answer.status, 200, answer.body);
    assert.equal(answer.type, "application/json");
    const body = JSON.parse(answer.body);
    assert.deepEqual(Object.keys(body).sort(), [
      "era",
      "pid",
      "restarts",
      "status",
      "uptimeSeconds",
    ]);
    assert.equal(body.status, "ok");
    assert.equal(body.era, "modern");
    assert.equal(body.restarts, 0);
    assert.ok(Number.isInteger(body.pid) && body.pid > 0);
    assert.ok(!answer.body.includes(TOKEN) && !answer.body.includes(dir));
    assert.equal((await get(run.url)).status, 401);
    assert.equal((await get(health, {}, "HEAD")).status, 200);
  });

  it("applies the Host and Origin checks, and takes only GET and HEAD", async () => {
    assert.equal((await get(health, { Host: "evil.example" })).status, 403);
    assert.equal((await get(health, { Origin: "https://evil.example" })).status, 403);
    const post = await get(health, {}, "POST");
    assert.equal(post.status, 405);
    assert.equal(post.allow, "GET, HEAD");
  });

  it("answers 503 while the child restarts, 200 again once its successor answered", async () => {
    const before = JSON.parse((await get(health)).body);
    const client = new McpClient({ clientInfo: { name: "health", version: "1" }, cache: false });
    await client.connect(
      () =>
        new HttpClientTransport(run.url, {
          flavourCache: new Map(),
          headers: { Authorization: `Bearer ${TOKEN}` },
        }),
    );
    try {
      await assert.rejects(client.callTool("crash", {}));
    } finally {
      await client.close();
    }
    // The successor waits for the release file: until then the gateway is not healthy.
    // ("down" for the moment between the crash and the supervisor hearing of it.)
    const down = await waitFor("the gateway to report restarting", async () => {
      const answer = await get(health);
      return answer.status === 503 && JSON.parse(answer.body).status === "restarting"
        ? answer
        : undefined;
    });
    assert.deepEqual(Object.keys(JSON.parse(down.body)).sort(), [
      "era",
      "restarts",
      "status",
      "uptimeSeconds",
    ]);
    assert.equal((await get(health)).status, 503);
    writeFileSync(join(dir, "release"), "");
    const up = await waitFor("the gateway to be healthy again", async () => {
      const answer = await get(health);
      return answer.status === 200 ? answer : undefined;
    });
    const after = JSON.parse(up.body);
    assert.equal(after.status, "ok");
    assert.equal(after.restarts, 1);
    assert.notEqual(after.pid, before.pid);
  });
});
