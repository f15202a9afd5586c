/**
 * The span and metric logic on its own, with the real SDK and in-memory exporters: one side's
 * observeOperation hands the trace context to the other through a `_meta` object, as the wire
 * would. The transports' and middleware's part is in the other files of this folder.
 */
import assert from "node:assert/strict";
import { after, beforeEach, describe, it } from "node:test";
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { JsonRpcError, LocalError } from "../../src/jsonrpc/errors.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { observeOperation } from "../../src/otel/operation.js";
import { injectIntoMeta } from "../../src/otel/propagation.js";
import { installTestTelemetry } from "../helpers/otel-sdk.js";

const telemetry = installTestTelemetry();
after(() => telemetry.shutdown());
beforeEach(() => telemetry.reset());

/** A client call whose `_meta` reaches a server handler, both observed. */
async function exchange(
  facts: { method: string; params?: JsonObject; requestId?: number },
  handler: () => Promise<JsonObject>,
): Promise<JsonObject> {
  return observeOperation(
    "client",
    {
      ...facts,
      protocolVersion: "2026-07-28",
      network: { transport: "tcp", peerAddress: "127.0.0.1", peerPort: 8080 },
    },
    async (propagate) => {
      const meta = injectIntoMeta(facts.params?._meta as JsonObject | undefined, propagate);
      // The server runs where the client's context is not ambient, as across a wire: only
      // `_meta` carries the trace.
      return context.with(ROOT_CONTEXT, () =>
        observeOperation(
          "server",
          {
            ...facts,
            protocolVersion: "2026-07-28",
            network: { transport: "tcp", peerAddress: "127.0.0.1", peerPort: 50000 },
          },
          handler,
          { received: { meta } },
        ),
      );
    },
  );
}

describe("observeOperation", () => {
  it("makes a CLIENT span the parent of the SERVER span, named by method and tool", async () => {
    await exchange(
      { method: "tools/call", params: { name: "echo", arguments: { text: "hi" } }, requestId: 7 },
      async () => ({ content: [] }),
    );
    const [server, client] = telemetry.spans();
    assert.ok(server && client);
    assert.equal(client.name, "tools/call echo");
    assert.equal(server.name, "tools/call echo");
    assert.equal(client.kind, SpanKind.CLIENT);
    assert.equal(server.kind, SpanKind.SERVER);
    assert.equal(server.spanContext().traceId, client.spanContext().traceId);
    assert.equal(server.parentSpanContext?.spanId, client.spanContext().spanId);
    assert.deepEqual(client.attributes, {
      "mcp.method.name": "tools/call",
      "jsonrpc.request.id": "7",
      "mcp.protocol.version": "2026-07-28",
      "gen_ai.tool.name": "echo",
      "gen_ai.operation.name": "execute_tool",
      "network.transport": "tcp",
      "server.address": "127.0.0.1",
      "server.port": 8080,
    });
    assert.equal(server.attributes["client.address"], "127.0.0.1");
    assert.equal(server.attributes["client.port"], 50000);
    assert.equal(server.attributes["server.address"], undefined);
    assert.equal(client.status.code, SpanStatusCode.UNSET);
  });

  it("nests under the caller's active span", async () => {
    const tracer = trace.getTracer("test");
    await tracer.startActiveSpan("outer", async (outer) => {
      await exchange({ method: "ping", requestId: 1 }, async () => ({}));
      outer.end();
    });
    const spans = telemetry.spans();
    const outer = spans.find((span) => span.name === "outer");
    const client = spans.find((span) => span.kind === SpanKind.CLIENT);
    assert.equal(client?.parentSpanContext?.spanId, outer?.spanContext().spanId);
    assert.equal(client?.name, "ping");
  });

  it("records an error reply: error.type, rpc.response.status_code, ERROR with its message", async () => {
    await assert.rejects(
      exchange({ method: "tools/call", params: { name: "nope" }, requestId: 2 }, async () => {
        throw new JsonRpcError(-32602, "Unknown tool: nope");
      }),
    );
    for (const span of telemetry.spans()) {
      assert.equal(span.attributes["error.type"], "-32602");
      assert.equal(span.attributes["rpc.response.status_code"], "-32602");
      assert.deepEqual(span.status, { code: SpanStatusCode.ERROR, message: "Unknown tool: nope" });
    }
  });

  it("a tool result with isError is a tool_error, and no status code", async () => {
    await exchange({ method: "tools/call", params: { name: "fails" }, requestId: 3 }, async () => ({
      content: [],
      isError: true,
    }));
    for (const span of telemetry.spans()) {
      assert.equal(span.attributes["error.type"], "tool_error");
      assert.equal(span.attributes["rpc.response.status_code"], undefined);
      assert.equal(span.status.code, SpanStatusCode.ERROR);
    }
  });

  it("a handler's own exception is -32603 on the server with no description; a local failure its kind", async () => {
    await assert.rejects(
      observeOperation(
        "server",
        { method: "tools/call", params: { name: "x" }, requestId: 4 },
        async () => {
          throw new Error("secret token abc in a stack");
        },
      ),
    );
    await assert.rejects(
      observeOperation(
        "client",
        { method: "tools/call", params: { name: "x" }, requestId: 5 },
        async () => {
          throw new LocalError("timeout", "Request timed out after 10 ms");
        },
      ),
    );
    const [server, client] = telemetry.spans();
    assert.equal(server?.attributes["error.type"], "-32603");
    assert.equal(server?.status.message, undefined);
    assert.equal(client?.attributes["error.type"], "timeout");
    assert.equal(client?.attributes["rpc.response.status_code"], undefined);
  });

  it("names prompts by prompt, resources by URI only on opt-in", async () => {
    await exchange(
      { method: "prompts/get", params: { name: "greet" }, requestId: 6 },
      async () => ({}),
    );
    await exchange(
      { method: "resources/read", params: { uri: "file:///a.txt" }, requestId: 7 },
      async () => ({}),
    );
    await observeOperation(
      "client",
      { method: "resources/read", params: { uri: "file:///b.txt" }, requestId: 8 },
      async () => ({}),
      { capture: { resourceUriInNames: true } },
    );
    const names = telemetry.spans().map((span) => span.name);
    assert.deepEqual(names, [
      "prompts/get greet",
      "prompts/get greet",
      "resources/read",
      "resources/read",
      "resources/read file:///b.txt",
    ]);
    const read = telemetry.spans()[2];
    assert.equal(read?.attributes["mcp.resource.uri"], "file:///a.txt");
    assert.equal(telemetry.spans()[0]?.attributes["gen_ai.prompt.name"], "greet");
  });

  it("records tool arguments and results only when asked", async () => {
    await observeOperation(
      "server",
      { method: "tools/call", params: { name: "echo", arguments: { text: "hi" } }, requestId: 9 },
      async () => ({ content: [{ type: "text", text: "hi" }] }),
      { capture: { toolPayloads: true } },
    );
    await observeOperation(
      "server",
      { method: "tools/call", params: { name: "echo", arguments: { text: "hi" } }, requestId: 10 },
      async () => ({ content: [] }),
    );
    const [asked, plain] = telemetry.spans();
    assert.equal(asked?.attributes["gen_ai.tool.call.arguments"], '{"text":"hi"}');
    assert.equal(
      asked?.attributes["gen_ai.tool.call.result"],
      '{"content":[{"type":"text","text":"hi"}]}',
    );
    assert.equal(plain?.attributes["gen_ai.tool.call.arguments"], undefined);
    assert.equal(plain?.attributes["gen_ai.tool.call.result"], undefined);
  });

  it("a notification has no jsonrpc.request.id; a legacy session its mcp.session.id", async () => {
    await observeOperation(
      "client",
      { method: "notifications/initialized", protocolVersion: "2025-11-25", sessionId: "abc123" },
      async () => undefined,
    );
    const [span] = telemetry.spans();
    assert.equal(span?.name, "notifications/initialized");
    assert.deepEqual(span?.attributes, {
      "mcp.method.name": "notifications/initialized",
      "mcp.protocol.version": "2025-11-25",
      "mcp.session.id": "abc123",
    });
  });

  it("records both operation histograms, in seconds, with the conventions' buckets and low-cardinality attributes", async () => {
    await exchange(
      { method: "tools/call", params: { name: "echo" }, requestId: 11 },
      async () => ({}),
    );
    await assert.rejects(
      exchange({ method: "tools/call", params: { name: "echo" }, requestId: 12 }, async () => {
        throw new JsonRpcError(-32602, "bad");
      }),
    );
    const points = await telemetry.histograms();
    const client = points.filter((point) => point.name === "mcp.client.operation.duration");
    const server = points.filter((point) => point.name === "mcp.server.operation.duration");
    const okClient = client.find((point) => point.attributes["error.type"] === undefined);
    assert.ok(okClient);
    assert.equal(okClient.unit, "s");
    assert.deepEqual(
      okClient.boundaries,
      [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
    );
    assert.deepEqual(okClient.attributes, {
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "echo",
      "gen_ai.operation.name": "execute_tool",
      "mcp.protocol.version": "2026-07-28",
      "network.transport": "tcp",
      "server.address": "127.0.0.1",
      "server.port": 8080,
    });
    const failedServer = server.find((point) => point.attributes["error.type"] === "-32602");
    assert.equal(failedServer?.attributes["rpc.response.status_code"], "-32602");
    assert.equal(failedServer?.attributes["jsonrpc.request.id"], undefined);
    assert.equal(failedServer?.attributes["client.address"], undefined);
    assert.ok(client.every((point) => point.count >= 1));
  });
});
