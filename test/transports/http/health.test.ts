/**
 * The `health` option of createHttpHandler / serveHttp: its own path, 200 or 503 from what
 * `check` says, "status" filled in unless given, never cached, no authentication, Host checked.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpServer } from "../../../src/server/index.js";
import { serveHttp } from "../../../src/transports/http/node-adapter.js";

describe("HTTP health check option", () => {
  it("serves what check says on its path, before authentication", async () => {
    let ok = true;
    const served = await serveHttp(new McpServer({ serverInfo: { name: "h", version: "1" } }), {
      health: { path: "/ready", check: () => ({ ok, details: { version: "1.2.3" } }) },
      authenticate: () => new Response("Unauthorized", { status: 401 }),
    });
    try {
      const ready = new URL("/ready", served.url);
      const up = await fetch(ready);
      assert.equal(up.status, 200);
      assert.equal(up.headers.get("cache-control"), "no-store");
      assert.deepEqual(await up.json(), { status: "ok", version: "1.2.3" });
      ok = false;
      const down = await fetch(ready);
      assert.equal(down.status, 503);
      assert.deepEqual(await down.json(), { status: "unavailable", version: "1.2.3" });
      // The MCP endpoint keeps its authentication; the default path is not served.
      const mcp = await fetch(served.url, { method: "POST", body: "{}" });
      assert.equal(mcp.status, 401);
      await mcp.body?.cancel();
      const other = await fetch(new URL("/healthz", served.url));
      assert.equal(other.status, 404);
      await other.body?.cancel();
    } finally {
      await served.close();
    }
  });
});
