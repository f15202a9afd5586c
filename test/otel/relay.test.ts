/**
 * RelayTracer (tap --otel) with the SDK's in-memory exporter: a span per request crossing, either
 * way, ended by its reply; error replies, requests left open at close, the negotiated legacy
 * version, the sender's trace continued from `_meta`. (Across processes: e2e.test.ts.)
 */
import assert from "node:assert/strict";
import { after, beforeEach, describe, it } from "node:test";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { RelayTracer } from "../../src/otel/relay.js";
import { installTestTelemetry } from "../helpers/otel-sdk.js";

const telemetry = installTestTelemetry();
after(() => telemetry.shutdown());
beforeEach(() => telemetry.reset());

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("RelayTracer", () => {
  it("spans a request from its line to its reply, in the sender's trace", async () => {
    const relay = new RelayTracer({ transport: "pipe" });
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    relay.message("c2s", {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: {
        name: "echo",
        _meta: { traceparent, "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
      },
    });
    await settle();
    assert.equal(telemetry.spans().length, 0, "still open");
    relay.message("s2c", { jsonrpc: "2.0", id: 7, result: { content: [] } });
    await settle();
    const [span] = telemetry.spans();
    assert.ok(span);
    assert.equal(span.name, "tools/call echo");
    assert.equal(span.kind, SpanKind.SERVER);
    assert.equal(span.spanContext().traceId, "0af7651916cd43dd8448eb211c80319c");
    assert.equal(span.parentSpanContext?.spanId, "b7ad6b7169203331");
    assert.equal(span.attributes["jsonrpc.request.id"], "7");
    assert.equal(span.attributes["mcp.protocol.version"], "2026-07-28");
    assert.equal(span.attributes["network.transport"], "pipe");
    assert.equal(span.status.code, SpanStatusCode.UNSET);
  });

  it("an error reply, a server's own request, and what is open at close", async () => {
    const relay = new RelayTracer({ transport: "pipe" });
    relay.message("c2s", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x" } });
    relay.message("s2c", {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32602, message: "Unknown tool: x" },
    });
    // The same id the other way is another request: the server asking the client.
    relay.message("s2c", { jsonrpc: "2.0", id: 1, method: "roots/list" });
    relay.message("c2s", { jsonrpc: "2.0", id: 1, result: { roots: [] } });
    relay.message("c2s", {
      jsonrpc: "2.0",
      id: 2,
      method: "resources/read",
      params: { uri: "a:b" },
    });
    relay.close();
    await settle();
    const byMethod = new Map(
      telemetry.spans().map((span) => [span.attributes["mcp.method.name"], span]),
    );
    const failed = byMethod.get("tools/call");
    assert.equal(failed?.attributes["error.type"], "-32602");
    assert.equal(failed?.status.code, SpanStatusCode.ERROR);
    assert.equal(byMethod.get("roots/list")?.status.code, SpanStatusCode.UNSET);
    assert.equal(byMethod.get("resources/read")?.attributes["error.type"], "closed");
  });

  it("names the legacy version initialize chose on the requests after it", async () => {
    const relay = new RelayTracer({ transport: "pipe" });
    relay.message("c2s", {
      jsonrpc: "2.0",
      id: "i",
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "c", version: "1" },
      },
    });
    relay.message("s2c", {
      jsonrpc: "2.0",
      id: "i",
      result: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        serverInfo: { name: "s", version: "1" },
      },
    });
    relay.message("c2s", { jsonrpc: "2.0", method: "notifications/initialized" });
    relay.message("c2s", { jsonrpc: "2.0", id: 3, method: "tools/list" });
    relay.message("s2c", { jsonrpc: "2.0", id: 3, result: { tools: [] } });
    await settle();
    const list = telemetry
      .spans()
      .find((span) => span.attributes["mcp.method.name"] === "tools/list");
    assert.equal(list?.attributes["mcp.protocol.version"], "2025-06-18");
    const note = telemetry
      .spans()
      .find((span) => span.attributes["mcp.method.name"] === "notifications/initialized");
    assert.ok(note, "a notification is a span too");
  });
});
