/**
 * Multi round-trip requests stay in one trace: a modern tools/call that needs input is answered
 * `input_required`, and the client's retry (a new request, a new CLIENT span) hangs under the
 * round before it, so the rounds and the server's spans for them share one trace even when the
 * caller has no span of its own. Over Streamable HTTP, where nothing ambient links the sides.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SpanKind } from "@opentelemetry/api";
import { McpClient } from "../../src/client/index.js";
import { otelClientMiddleware, otelServerMiddleware } from "../../src/otel/middleware.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";
import { inputServer } from "../fixtures/mrtr-features.js";
import { installTestTelemetry } from "../helpers/otel-sdk.js";

const telemetry = installTestTelemetry();
let served: ServedHttp;
before(async () => {
  const server = inputServer();
  server.use(otelServerMiddleware());
  served = await serveHttp(server);
});
after(async () => {
  await served.close();
  await telemetry.shutdown();
});

describe("multi round-trip rounds", () => {
  it("are one trace: each round's CLIENT span under the round before, each SERVER span under its round", async () => {
    const client = new McpClient({
      clientInfo: { name: "rounds", version: "1.0.0" },
      era: "modern",
      handlers: {
        elicitation: () => ({ action: "accept", content: { name: "Ada", plan: "pro" } }),
      },
    });
    client.use(otelClientMiddleware());
    await client.connect(new HttpClientTransport(served.url));
    try {
      const result = await client.callTool("signup", {});
      assert.deepEqual(result.content, [{ type: "text", text: "Ada on pro" }]);
    } finally {
      await client.close();
    }
    const calls = telemetry.spans().filter((span) => span.name === "tools/call signup");
    const clients = calls.filter((span) => span.kind === SpanKind.CLIENT);
    const servers = calls.filter((span) => span.kind === SpanKind.SERVER);
    assert.equal(clients.length, 2, "two rounds");
    assert.equal(servers.length, 2);
    const [first, second] = clients as [(typeof clients)[0], (typeof clients)[0]];
    assert.equal(first.parentSpanContext, undefined, "the first round is the root");
    assert.equal(second.parentSpanContext?.spanId, first.spanContext().spanId);
    const traceIds = new Set(calls.map((span) => span.spanContext().traceId));
    assert.equal(traceIds.size, 1, "one trace");
    for (const server of servers) {
      const round = clients.find(
        (span) => span.spanContext().spanId === server.parentSpanContext?.spanId,
      );
      assert.ok(round, "each SERVER span's parent is a round's CLIENT span");
      assert.equal(server.attributes["jsonrpc.request.id"], round.attributes["jsonrpc.request.id"]);
    }
  });
});
