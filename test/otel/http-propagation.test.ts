/**
 * Trace context over Streamable HTTP: the server takes its parent from `_meta` first, then from
 * the `traceparent` header, and links the other; our client writes both; the official SDK
 * clients (v2 modern, v1 legacy) that set `_meta.traceparent` by hand are honoured.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import {
  Client as SdkV2Client,
  StreamableHTTPClientTransport as SdkV2Http,
} from "@modelcontextprotocol/client";
import { Client as SdkV1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as SdkV1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SpanKind } from "@opentelemetry/api";
import { McpClient } from "../../src/client/index.js";
import { otelClientMiddleware, otelServerMiddleware } from "../../src/otel/middleware.js";
import { McpServer } from "../../src/server/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";
import { installTestTelemetry } from "../helpers/otel-sdk.js";
import { post, request } from "../transports/http/http-helpers.js";

const telemetry = installTestTelemetry();

const META_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const META_SPAN = "00f067aa0ba902b7";
const HEADER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const HEADER_SPAN = "b7ad6b7169203331";

/** What the server saw of each tools/call: the traceparent in `_meta` and in the header. */
const seen: { meta: unknown; header: string | null }[] = [];
let served: ServedHttp;

before(async () => {
  const server = new McpServer({ serverInfo: { name: "traced", version: "1.0.0" } });
  server.tool({ name: "echo", inputSchema: { type: "object" } }, (args) => String(args.text));
  server.use(otelServerMiddleware());
  server.use("tools/call", (ctx, next) => {
    seen.push({ meta: ctx.meta?.traceparent, header: ctx.header("traceparent") ?? null });
    return next();
  });
  served = await serveHttp(server);
});
after(async () => {
  await served.close();
  await telemetry.shutdown();
});
beforeEach(() => {
  telemetry.reset();
  seen.length = 0;
});

function serverSpan() {
  const spans = telemetry.spans().filter((span) => span.kind === SpanKind.SERVER);
  assert.equal(spans.length, 1);
  return spans[0]!;
}

describe("the server's parent over HTTP", () => {
  it("comes from the traceparent header when _meta has none", async () => {
    const response = await post(
      served.url,
      request("tools/call", { name: "echo", arguments: { text: "a" } }),
      {
        traceparent: `00-${HEADER_TRACE}-${HEADER_SPAN}-01`,
      },
    );
    assert.equal(response.status, 200);
    await response.text();
    const span = serverSpan();
    assert.equal(span.spanContext().traceId, HEADER_TRACE);
    assert.equal(span.parentSpanContext?.spanId, HEADER_SPAN);
    assert.deepEqual(span.links, []);
  });

  it("comes from _meta over the header, which is linked", async () => {
    const body = request("tools/call", { name: "echo", arguments: { text: "b" } });
    (body.params as { _meta: Record<string, unknown> })._meta.traceparent =
      `00-${META_TRACE}-${META_SPAN}-01`;
    const response = await post(served.url, body, {
      traceparent: `00-${HEADER_TRACE}-${HEADER_SPAN}-01`,
    });
    await response.text();
    const span = serverSpan();
    assert.equal(span.spanContext().traceId, META_TRACE);
    assert.equal(span.parentSpanContext?.spanId, META_SPAN);
    assert.deepEqual(
      span.links.map((link) => [link.context.traceId, link.context.spanId]),
      [[HEADER_TRACE, HEADER_SPAN]],
    );
  });

  it("is a fresh root when neither carries a valid trace context", async () => {
    const response = await post(
      served.url,
      request("tools/call", { name: "echo", arguments: { text: "c" } }),
      {
        traceparent: "00-not-a-trace-01",
      },
    );
    await response.text();
    assert.equal(serverSpan().parentSpanContext, undefined);
  });
});

for (const era of ["modern", "legacy"] as const) {
  describe(`our client over HTTP (${era})`, () => {
    it("sends the same traceparent in _meta and in the header", async () => {
      const client = new McpClient({ clientInfo: { name: "tracer", version: "1.0.0" }, era });
      client.use(otelClientMiddleware());
      await client.connect(new HttpClientTransport(served.url));
      try {
        await client.callTool("echo", { text: "d" });
      } finally {
        await client.close();
      }
      assert.equal(seen.length, 1);
      const [{ meta, header }] = seen as [{ meta: unknown; header: string | null }];
      assert.match(String(meta), /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      assert.equal(header, meta);
      const clientSpan = telemetry
        .spans()
        .find(
          (span) =>
            span.kind === SpanKind.CLIENT && span.attributes["mcp.method.name"] === "tools/call",
        );
      assert.equal(
        meta,
        `00-${clientSpan?.spanContext().traceId}-${clientSpan?.spanContext().spanId}-01`,
      );
    });
  });
}

describe("official SDK clients that set _meta.traceparent by hand", () => {
  it("v2 (2026-07-28): the server span continues the given trace", async () => {
    const client = new SdkV2Client(
      { name: "sdk-v2", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(new SdkV2Http(new URL(served.url)));
    try {
      await client.callTool({
        name: "echo",
        arguments: { text: "e" },
        _meta: { traceparent: `00-${META_TRACE}-${META_SPAN}-01` },
      });
    } finally {
      await client.close();
    }
    // The SDK may send other requests first (discovery, tools/list): find the call's span.
    const span = telemetry
      .spans()
      .find(
        (candidate) => candidate.name === "tools/call echo" && candidate.kind === SpanKind.SERVER,
      );
    assert.ok(span);
    assert.equal(span.spanContext().traceId, META_TRACE);
    assert.equal(span.parentSpanContext?.spanId, META_SPAN);
  });

  it("v1 (a 2025 legacy session): the server span continues the given trace", async () => {
    const client = new SdkV1Client({ name: "sdk-v1", version: "1.0.0" });
    await client.connect(new SdkV1Http(new URL(served.url)));
    try {
      await client.callTool({
        name: "echo",
        arguments: { text: "f" },
        _meta: { traceparent: `00-${META_TRACE}-${META_SPAN}-01`, baggage: "tenant=acme" },
      });
    } finally {
      await client.close();
    }
    const span = telemetry.spans().find((candidate) => candidate.name === "tools/call echo");
    assert.ok(span);
    assert.equal(span.spanContext().traceId, META_TRACE);
    assert.equal(span.parentSpanContext?.spanId, META_SPAN);
    assert.match(String(span.attributes["mcp.session.id"]), /\S/, "a legacy session is named");
  });
});
