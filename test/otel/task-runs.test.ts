/**
 * otelTaskRuns(): a task's background run is a trace of its own, an INTERNAL root span linked to
 * the tools/call that made the task, and what the tool does meanwhile sits under it; a failed
 * run is an error there. Both eras' tasks (the extension, and 2025-11-25 task augmentation), over
 * memory pairs, with the SDK's in-memory exporter.
 */
import assert from "node:assert/strict";
import { after, beforeEach, describe, it } from "node:test";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { McpClient } from "../../src/client/index.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { otelServerMiddleware } from "../../src/otel/middleware.js";
import { otelTaskRuns } from "../../src/otel/task-runs.js";
import { McpServer } from "../../src/server/index.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import { installTestTelemetry } from "../helpers/otel-sdk.js";

const telemetry = installTestTelemetry();
after(() => telemetry.shutdown());
beforeEach(() => telemetry.reset());

async function connected(era: "modern" | "legacy") {
  const server = new McpServer({
    serverInfo: { name: "tasks", version: "1" },
    tasks: { runTask: otelTaskRuns(), pollIntervalMs: 10 },
    onError: () => {},
  });
  const task = { support: "required", pollIntervalMs: 10 } as const;
  server.tool(
    { name: "work" },
    async (args) => {
      if (args.fail === true) throw new JsonRpcError(-32051, "the work failed");
      // The tool's own work, traced as an application would: under the active span.
      const inner = trace.getTracer("app").startSpan("inner work");
      inner.end();
      return "done";
    },
    { task },
  );
  server.use(otelServerMiddleware());
  const [serverSide, clientSide] = createMemoryPair();
  server.connect(serverSide);
  const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era, tasks: true });
  await client.connect(clientSide);
  return client;
}

const named = (name: string): ReadableSpan => {
  const found = telemetry.spans().filter((span) => span.name === name);
  assert.equal(found.length, 1, `one span named ${name}`);
  return found[0]!;
};

for (const era of ["modern", "legacy"] as const) {
  describe(`otelTaskRuns, ${era} tasks`, () => {
    it("runs the task in a root span linked to the call that made it", async () => {
      const client = await connected(era);
      try {
        const result = await client.callTool("work", {});
        assert.deepEqual(result.content, [{ type: "text", text: "done" }]);
      } finally {
        await client.close();
      }
      const creating = telemetry
        .spans()
        .find(
          (span) =>
            span.kind === SpanKind.SERVER &&
            span.attributes["mcp.method.name"] === "tools/call" &&
            span.attributes["gen_ai.tool.name"] === "work",
        );
      assert.ok(creating, "the SERVER span of the call that made the task");
      const run = telemetry
        .spans()
        .find((span) => span.kind === SpanKind.INTERNAL && span.name === "tools/call work");
      assert.ok(run, "the task's run");
      assert.equal(run.parentSpanContext, undefined, "a root span");
      assert.notEqual(run.spanContext().traceId, creating.spanContext().traceId);
      assert.deepEqual(
        run.links.map((link) => link.context.spanId),
        [creating.spanContext().spanId],
      );
      assert.match(String(run.attributes["mcp.task.id"]), /\S/);
      assert.equal(run.attributes["gen_ai.tool.name"], "work");
      const inner = named("inner work");
      assert.equal(inner.parentSpanContext?.spanId, run.spanContext().spanId);
    });

    it("a run that fails is an error on its span", async () => {
      const client = await connected(era);
      try {
        await assert.rejects(client.callTool("work", { fail: true }), { code: -32051 });
      } finally {
        await client.close();
      }
      const run = telemetry
        .spans()
        .find((span) => span.kind === SpanKind.INTERNAL && span.name === "tools/call work");
      assert.ok(run, "the task's run");
      assert.equal(run.status.code, SpanStatusCode.ERROR);
      assert.equal(run.attributes["error.type"], "-32051");
    });
  });
}
