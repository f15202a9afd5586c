/**
 * examples/worker in workerd (through Miniflare): bundled as a Workers build would bundle it,
 * from the packed package under the `workerd` export condition, then called over real HTTP on
 * 127.0.0.1. A tool call, the two kinds of bad arguments (-32602 for arguments that are not an
 * object, a tool error in @cfworker/json-schema's words for ones that break the schema), and
 * the official server suite at 2026-07-28 with the scenarios that cannot apply to a stateless
 * Worker named, and why. Needs `npm run build`.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Miniflare } from "miniflare";
import { McpClient } from "../../src/client/index.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { conformanceRequirements, type ScenarioCheck } from "../helpers/conformance-run.js";
import { installPacked } from "../helpers/packed-package.js";
import { bundleFile, nodeOnlyTraces, REPO } from "../helpers/web-bundle.js";

/**
 * Scenarios of the 2026-07-28 server requirements that cannot pass on this Worker, and why.
 * Each must still fail (or warn) here: one that starts passing is taken off the list.
 */
const NOT_APPLICABLE: Record<string, string> = {
  // The tasks extension: a task outlives the request that made it and is read by later ones,
  // which on Workers needs a TaskStore every isolate shares (a Durable Object) and the work
  // kept alive past the response (ctx.waitUntil). The example registers no task tools.
  "tasks-capability-negotiation": "tasks need a shared TaskStore (Durable Object)",
  "tasks-dispatch-and-envelope": "tasks need a shared TaskStore (Durable Object)",
  "tasks-lifecycle": "tasks need a shared TaskStore (Durable Object)",
  "tasks-mrtr-composition": "tasks need a shared TaskStore (Durable Object)",
  "tasks-mrtr-input": "tasks need a shared TaskStore (Durable Object)",
  "tasks-request-headers": "tasks need a shared TaskStore (Durable Object)",
  "tasks-request-state-removal": "tasks need a shared TaskStore (Durable Object)",
  "tasks-required-task-error": "tasks need a shared TaskStore (Durable Object)",
  "tasks-wire-fields": "tasks need a shared TaskStore (Durable Object)",
};

/**
 * Checks that may only warn (SHOULDs): a list change made by one request cannot reach a listen
 * stream held open by another, since workerd forbids a request to write to another request's
 * stream. Delivering them needs the streams held in one Durable Object.
 */
const MAY_WARN = new Set([
  "sep-2575-server-sends-tools-list-changed-on-subscription",
  "sep-2575-server-sends-prompts-list-changed-on-subscription",
  "sep-2575-server-sends-resources-list-changed-on-subscription",
]);

function failing(checks: readonly ScenarioCheck[]): ScenarioCheck[] {
  return checks.filter(
    (check) =>
      check.status === "FAILURE" || (check.status === "WARNING" && !MAY_WARN.has(check.id)),
  );
}

describe("examples/worker in workerd (Miniflare)", () => {
  let scratch: string;
  let miniflare: Miniflare;
  let url: string;
  let bundled: { code: string; unresolved: string[] };

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), "mcpwire-worker-"));
    await installPacked(scratch);
    // The example as its own project would hold it: the worker and the fixtures it imports.
    for (const folder of ["worker", "everything-server"]) {
      cpSync(join(REPO, "dist", "examples", folder), join(scratch, "app", folder), {
        recursive: true,
        filter: (path) => !path.endsWith(".map") && !path.endsWith(".d.ts"),
      });
    }
    bundled = await bundleFile(join(scratch, "app", "worker", "worker.js"));
    miniflare = new Miniflare({
      modules: true,
      script: bundled.code,
      compatibilityDate: "2025-09-01",
      host: "127.0.0.1",
      port: 0,
    });
    url = new URL("/mcp", await miniflare.ready).href;
  });

  after(async () => {
    await miniflare?.dispose();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("bundles from the packed package with no Node module", () => {
    assert.deepEqual(bundled.unresolved, []);
    assert.deepEqual(nodeOnlyTraces(bundled.code), []);
  });

  it("calls a tool, and refuses bad arguments", async () => {
    const client = new McpClient({ clientInfo: { name: "worker-test", version: "1.0.0" } });
    await client.connect(new HttpClientTransport(url));
    try {
      assert.equal(client.era, "modern");
      const result = await client.callTool("test_simple_text");
      assert.deepEqual(result.content, [
        { type: "text", text: "This is a simple text response for testing." },
      ]);
      // Arguments that are no object: the request itself is malformed.
      await assert.rejects(
        client.request("tools/call", { name: "json_schema_2020_12_tool", arguments: [1] }),
        (error: unknown) =>
          error instanceof JsonRpcError &&
          error.code === -32602 &&
          error.message === 'tools/call "arguments" must be an object',
      );
      // Arguments that break the schema: a tool error the model can read, from cfworker.
      const invalid = await client.callTool("json_schema_2020_12_tool", {
        name: 5,
        email: "a@example.com",
      });
      assert.equal(invalid.isError, true);
      assert.deepEqual(invalid.content, [
        {
          type: "text",
          text: 'Invalid arguments for tool json_schema_2020_12_tool: arguments/name: Instance type "number" is invalid. Expected "string".',
        },
      ]);
    } finally {
      await client.close();
    }
  });

  it("answers a legacy initialize with 404 and -32601 naming the era it speaks", async () => {
    // A stateless Worker keeps no session: a legacy client is told plainly, not half-served.
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "legacy-client", version: "1.0.0" },
        },
      }),
    });
    assert.equal(response.status, 404);
    assert.equal(response.headers.get("mcp-session-id"), null);
    const reply = (await response.json()) as {
      id: number;
      error: { code: number; message: string };
    };
    assert.equal(reply.id, 1);
    assert.equal(reply.error.code, -32601);
    assert.match(
      reply.error.message,
      /^Method not found: initialize \(this endpoint speaks 2026-07-28\)$/,
    );
  });

  it("passes the official server suite at 2026-07-28 but for what cannot apply", async () => {
    const { scenarios, output } = await conformanceRequirements(url, "2026-07-28");
    assert.ok(scenarios.size > 30, `too few scenarios ran:\n${output.slice(-3000)}`);
    const problems: string[] = [];
    for (const [name, checks] of scenarios) {
      const bad = failing(checks);
      if (name in NOT_APPLICABLE) {
        if (bad.length === 0) problems.push(`${name} passes now: take it off NOT_APPLICABLE`);
      } else if (bad.length > 0) {
        problems.push(
          `${name}: ${bad.map((check) => `${check.id} ${check.errorMessage ?? ""}`).join("; ")}`,
        );
      }
    }
    for (const name of Object.keys(NOT_APPLICABLE)) {
      if (!scenarios.has(name)) problems.push(`${name} did not run`);
    }
    assert.deepEqual(problems, []);
  });
});
