/**
 * Pins every name mcpwire reports against the OpenTelemetry semantic conventions for MCP
 * (semantic-conventions-genai, docs/gen-ai/mcp.md, status Development). When the conventions
 * move, this test is the reviewed diff: change src/otel/conventions.ts and the values here.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ATTR,
  DURATION_BUCKETS,
  ERROR_TYPE,
  METRIC,
  METRIC_UNIT,
  NETWORK_TRANSPORT,
  OPERATION,
  OPERATION_METRIC_ATTRIBUTES,
  SPAN_KIND,
  TRACE_META_KEYS,
} from "../../src/otel/conventions.js";

describe("OpenTelemetry MCP conventions", () => {
  it("names the span attributes as the conventions do", () => {
    assert.deepEqual(ATTR, {
      methodName: "mcp.method.name",
      requestId: "jsonrpc.request.id",
      jsonrpcVersion: "jsonrpc.protocol.version",
      protocolVersion: "mcp.protocol.version",
      sessionId: "mcp.session.id",
      resourceUri: "mcp.resource.uri",
      toolName: "gen_ai.tool.name",
      promptName: "gen_ai.prompt.name",
      operationName: "gen_ai.operation.name",
      toolCallArguments: "gen_ai.tool.call.arguments",
      toolCallResult: "gen_ai.tool.call.result",
      responseStatusCode: "rpc.response.status_code",
      errorType: "error.type",
      // Ours, not the conventions' (they say nothing of tasks yet).
      taskId: "mcp.task.id",
      networkTransport: "network.transport",
      networkProtocolName: "network.protocol.name",
      networkProtocolVersion: "network.protocol.version",
      serverAddress: "server.address",
      serverPort: "server.port",
      clientAddress: "client.address",
      clientPort: "client.port",
    });
  });

  it("names the well-known values", () => {
    assert.deepEqual(OPERATION, { executeTool: "execute_tool" });
    assert.deepEqual(NETWORK_TRANSPORT, { pipe: "pipe", tcp: "tcp", unix: "unix" });
    assert.deepEqual(ERROR_TYPE, { toolError: "tool_error", other: "_OTHER" });
    assert.deepEqual(SPAN_KIND, { sender: "CLIENT", receiver: "SERVER" });
  });

  it("names the four duration histograms, in seconds, with the conventions' buckets", () => {
    assert.deepEqual(METRIC, {
      clientOperationDuration: "mcp.client.operation.duration",
      serverOperationDuration: "mcp.server.operation.duration",
      clientSessionDuration: "mcp.client.session.duration",
      serverSessionDuration: "mcp.server.session.duration",
    });
    assert.equal(METRIC_UNIT, "s");
    assert.deepEqual(
      [...DURATION_BUCKETS],
      [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
    );
    assert.ok(Object.isFrozen(DURATION_BUCKETS));
  });

  it("keeps high-cardinality attributes off the operation metrics", () => {
    assert.deepEqual(
      [...OPERATION_METRIC_ATTRIBUTES],
      [
        "mcp.method.name",
        "error.type",
        "gen_ai.prompt.name",
        "gen_ai.tool.name",
        "rpc.response.status_code",
        "gen_ai.operation.name",
        "mcp.protocol.version",
        "network.protocol.name",
        "network.protocol.version",
        "network.transport",
        "server.address",
        "server.port",
      ],
    );
  });

  it("propagates through the three _meta keys the 2026-07-28 revision reserves", () => {
    assert.deepEqual([...TRACE_META_KEYS], ["traceparent", "tracestate", "baggage"]);
  });
});
