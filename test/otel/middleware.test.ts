/**
 * otelServerMiddleware and otelClientMiddleware on real transports, in-process, with the SDK's
 * in-memory exporters: memory, TCP and Unix sockets, and Streamable HTTP on 127.0.0.1 in both
 * eras. Exact span names, kinds, parentage and attributes; an error reply; a tool error; the
 * duration metrics. (Across processes: stdio.test.ts and the end-to-end tests.)
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { McpClient } from "../../src/client/index.js";
import type { McpClientOptions } from "../../src/client/types.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { otelClientMiddleware, otelServerMiddleware } from "../../src/otel/middleware.js";
import { recordClientSession } from "../../src/otel/session.js";
import type { Transport } from "../../src/protocol/transport.js";
import { McpServer } from "../../src/server/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { serveHttp } from "../../src/transports/http/node-adapter.js";
import {
  type Connector,
  memoryConnector,
  tcpConnector,
  unixConnector,
} from "../helpers/connectors.js";
import { installTestTelemetry } from "../helpers/otel-sdk.js";
import { waitFor } from "../helpers/poll.js";

const telemetry = installTestTelemetry();
let socketDirectory: string;
before(async () => {
  socketDirectory = await mkdtemp(join(tmpdir(), "mcpwire-otel-"));
});
after(async () => {
  await telemetry.shutdown();
  await rm(socketDirectory, { recursive: true, force: true });
});
beforeEach(() => telemetry.reset());

function tracedServer(): McpServer {
  const server = new McpServer({ serverInfo: { name: "traced", version: "1.0.0" } });
  server.tool({ name: "echo", inputSchema: { type: "object" } }, (args) => String(args.text));
  server.tool({ name: "report", inputSchema: { type: "object" } }, async (_args, context) => {
    await context.progress(1, 2);
    await context.log.info("halfway");
    return "reported";
  });
  server.tool({ name: "refuse", inputSchema: { type: "object" } }, () => {
    throw new JsonRpcError(-32050, "refused on purpose");
  });
  server.tool({ name: "fail", inputSchema: { type: "object" } }, () => ({
    content: [{ type: "text", text: "it broke" }],
    isError: true,
  }));
  server.use(otelServerMiddleware());
  return server;
}

const httpConnector: Connector = async (server) => {
  const served = await serveHttp(server);
  return { transport: new HttpClientTransport(served.url), cleanup: () => served.close() };
};

interface Row {
  name: string;
  connector: () => Connector;
  era: "modern" | "legacy";
  /** network.transport and network.protocol.name on both spans, when the transport says. */
  network: Record<string, string>;
  /** The peer on the CLIENT span (server.*) and on the SERVER span (client.*): "port" means any. */
  peers?: { client?: Record<string, string>; server?: Record<string, string> };
  /** mcp.session.id expected (legacy HTTP sessions). */
  session: boolean;
}

const ROWS: Row[] = [
  {
    name: "memory, modern",
    connector: () => memoryConnector,
    era: "modern",
    network: {},
    session: false,
  },
  {
    name: "memory, legacy",
    connector: () => memoryConnector,
    era: "legacy",
    network: {},
    session: false,
  },
  {
    name: "TCP socket, modern",
    connector: () => tcpConnector,
    era: "modern",
    network: { "network.transport": "tcp" },
    peers: {
      client: { "server.address": "127.0.0.1", "server.port": "port" },
      server: { "client.address": "127.0.0.1", "client.port": "port" },
    },
    session: false,
  },
  {
    name: "Unix socket, legacy",
    connector: () => unixConnector(socketDirectory),
    era: "legacy",
    network: { "network.transport": "unix" },
    peers: { client: { "server.address": "socket path" } },
    session: false,
  },
  {
    name: "Streamable HTTP, modern",
    connector: () => httpConnector,
    era: "modern",
    network: { "network.transport": "tcp", "network.protocol.name": "http" },
    peers: {
      client: { "server.address": "127.0.0.1", "server.port": "port" },
      server: { "client.address": "127.0.0.1", "client.port": "port" },
    },
    session: false,
  },
  {
    name: "Streamable HTTP, legacy",
    connector: () => httpConnector,
    era: "legacy",
    network: { "network.transport": "tcp", "network.protocol.name": "http" },
    peers: {
      client: { "server.address": "127.0.0.1", "server.port": "port" },
      server: { "client.address": "127.0.0.1", "client.port": "port" },
    },
    session: true,
  },
];

async function connected(
  row: Row,
  options: Partial<McpClientOptions> = {},
): Promise<{ client: McpClient; close(): Promise<void> }> {
  const server = tracedServer();
  const { transport, cleanup } = await row.connector()(server);
  const client = new McpClient({
    clientInfo: { name: "tracer", version: "1.0.0" },
    era: row.era,
    ...options,
  });
  client.use(otelClientMiddleware());
  await client.connect(transport as Transport);
  return {
    client,
    async close() {
      await client.close();
      await cleanup();
      await server.close();
    },
  };
}

function pair(method: string): { client: ReadableSpan; server: ReadableSpan } {
  const spans = telemetry.spans().filter((span) => span.attributes["mcp.method.name"] === method);
  const client = spans.filter((span) => span.kind === SpanKind.CLIENT);
  const server = spans.filter((span) => span.kind === SpanKind.SERVER);
  assert.equal(client.length, 1, `one CLIENT span for ${method}`);
  assert.equal(server.length, 1, `one SERVER span for ${method}`);
  return { client: client[0]!, server: server[0]! };
}

for (const row of ROWS) {
  describe(`otel middleware over ${row.name}`, () => {
    it("the handshake is a CLIENT span parent of a SERVER span", async () => {
      const { client, close } = await connected(row);
      const version = client.protocolVersion;
      try {
        // Answered in order on the wire: the server has had notifications/initialized by then.
        await client.listTools();
      } finally {
        await close();
      }
      const method = row.era === "modern" ? "server/discover" : "initialize";
      const spans = pair(method);
      assert.equal(spans.client.name, method);
      assert.equal(spans.server.name, method);
      assert.equal(spans.server.parentSpanContext?.spanId, spans.client.spanContext().spanId);
      assert.equal(spans.server.spanContext().traceId, spans.client.spanContext().traceId);
      assert.equal(spans.client.attributes["mcp.protocol.version"], version);
      for (const [key, value] of Object.entries(row.network)) {
        assert.equal(spans.client.attributes[key], value, key);
      }
      if (row.era === "legacy") {
        // The client's own notification: a CLIENT span, the server's SERVER span under it.
        const initialized = pair("notifications/initialized");
        assert.equal(
          initialized.server.parentSpanContext?.spanId,
          initialized.client.spanContext().spanId,
        );
        assert.equal(initialized.client.attributes["mcp.protocol.version"], version);
      }
    });

    it("a notification the server sends is a CLIENT span there, the client's SERVER span under it", async () => {
      const { client, close } = await connected(row, { logLevel: "info" });
      try {
        await client.callTool("report", {}, { onProgress: () => {} });
      } finally {
        await close();
      }
      // Sent while the call ran: CLIENT spans under its SERVER span.
      const call = telemetry
        .spans()
        .find(
          (span) =>
            span.kind === SpanKind.SERVER && span.attributes["gen_ai.tool.name"] === "report",
        );
      for (const method of ["notifications/progress", "notifications/message"]) {
        const sent = telemetry
          .spans()
          .filter(
            (span) =>
              span.kind === SpanKind.CLIENT && span.attributes["mcp.method.name"] === method,
          );
        assert.equal(sent.length, 1, method);
        assert.equal(sent[0]?.name, method);
        assert.equal(sent[0]?.parentSpanContext?.spanId, call?.spanContext().spanId, method);
      }
      // The client hears both (progress too, before its engine acts on it): each SERVER span
      // continues the server's trace from the notification's _meta.
      for (const method of ["notifications/progress", "notifications/message"]) {
        const { client: sent, server: heard } = pair(method);
        assert.equal(heard.parentSpanContext?.spanId, sent.spanContext().spanId, method);
      }
    });

    it("a tools/call is a CLIENT span parent of a SERVER span, with the conventions' attributes", async () => {
      const { client, close } = await connected(row);
      try {
        await client.callTool("echo", { text: "hi" });
      } finally {
        await close();
      }
      const spans = pair("tools/call");
      for (const span of [spans.client, spans.server]) {
        assert.equal(span.name, "tools/call echo");
        assert.equal(span.status.code, SpanStatusCode.UNSET);
        assert.equal(span.attributes["gen_ai.tool.name"], "echo");
        assert.equal(span.attributes["gen_ai.operation.name"], "execute_tool");
        assert.match(String(span.attributes["jsonrpc.request.id"]), /^\S+$/);
        assert.match(String(span.attributes["mcp.protocol.version"]), /^\d{4}-\d{2}-\d{2}$/);
        for (const [key, value] of Object.entries(row.network)) {
          assert.equal(span.attributes[key], value, key);
        }
        if (row.session) assert.match(String(span.attributes["mcp.session.id"]), /\S/);
        else assert.equal(span.attributes["mcp.session.id"], undefined);
      }
      assert.equal(
        spans.client.attributes["jsonrpc.request.id"],
        spans.server.attributes["jsonrpc.request.id"],
        "both sides name the same request",
      );
      assert.equal(
        spans.client.attributes["mcp.protocol.version"],
        spans.server.attributes["mcp.protocol.version"],
      );
      for (const [side, span] of [
        ["client", spans.client],
        ["server", spans.server],
      ] as const) {
        const expected = row.peers?.[side] ?? {};
        for (const key of ["server.address", "server.port", "client.address", "client.port"]) {
          const want = expected[key];
          const got = span.attributes[key];
          if (want === undefined) assert.equal(got, undefined, `${side} span has no ${key}`);
          else if (want === "port") assert.ok(Number.isInteger(got) && (got as number) > 0, key);
          else if (want === "socket path") assert.match(String(got), /\.sock$/, key);
          else assert.equal(got, want, key);
        }
      }
      assert.equal(spans.server.spanContext().traceId, spans.client.spanContext().traceId);
      assert.equal(spans.server.parentSpanContext?.spanId, spans.client.spanContext().spanId);
    });

    it("an error reply: error.type and rpc.response.status_code on both sides, ERROR with the message", async () => {
      const { client, close } = await connected(row);
      try {
        await assert.rejects(client.callTool("refuse", {}), JsonRpcError);
      } finally {
        await close();
      }
      const spans = pair("tools/call");
      for (const span of [spans.client, spans.server]) {
        assert.equal(span.name, "tools/call refuse");
        assert.equal(span.attributes["error.type"], "-32050");
        assert.equal(span.attributes["rpc.response.status_code"], "-32050");
        assert.deepEqual(span.status, {
          code: SpanStatusCode.ERROR,
          message: "refused on purpose",
        });
      }
    });

    it("a tool result with isError is a tool_error on both sides", async () => {
      const { client, close } = await connected(row);
      try {
        const result = await client.callTool("fail", {});
        assert.equal(result.isError, true);
      } finally {
        await close();
      }
      const spans = pair("tools/call");
      for (const span of [spans.client, spans.server]) {
        assert.equal(span.attributes["error.type"], "tool_error");
        assert.equal(span.status.code, SpanStatusCode.ERROR);
      }
    });
  });
}

describe("otel middleware metrics", () => {
  it("records mcp.client.session.duration when a connection recorded by recordClientSession closes", async () => {
    const row = ROWS.find((candidate) => candidate.name === "memory, modern")!;
    const { client, close } = await connected(row);
    recordClientSession(client);
    await close();
    await client.closed;
    const sessions = (await telemetry.histograms()).filter(
      (point) => point.name === "mcp.client.session.duration",
    );
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0]?.count, 1);
    assert.equal(sessions[0]?.unit, "s");
    assert.match(String(sessions[0]?.attributes["mcp.protocol.version"]), /^\d{4}-\d{2}-\d{2}$/);
  });

  it("records mcp.server.session.duration per legacy session and per modern stream connection, none for modern HTTP", async () => {
    // The reader is cumulative over the whole file: count what this test adds, by attributes.
    const counts = async () => {
      const byAttributes = new Map<string, number>();
      for (const point of await telemetry.histograms()) {
        if (point.name !== "mcp.server.session.duration") continue;
        assert.equal(point.unit, "s");
        byAttributes.set(JSON.stringify(point.attributes), point.count);
      }
      return byAttributes;
    };
    const before = await counts();
    const expected = new Map<string, number>();
    for (const row of ROWS) {
      const { client, close } = await connected(row);
      await client.callTool("echo", { text: "a" });
      const key = JSON.stringify({
        "mcp.protocol.version": client.protocolVersion,
        ...row.network,
      });
      await close();
      // Modern requests over HTTP stand alone: they add nothing.
      const added = row.name === "Streamable HTTP, modern" ? 0 : 1;
      expected.set(key, (expected.get(key) ?? before.get(key) ?? 0) + added);
    }
    await waitFor("a server session per row", async () => {
      const after = await counts();
      return [...expected].every(([key, count]) => (after.get(key) ?? 0) >= count) || undefined;
    });
    const after = await counts();
    for (const [key, count] of expected) assert.equal(after.get(key) ?? 0, count, key);
  });

  it("records mcp.client.operation.duration and mcp.server.operation.duration per method", async () => {
    const row = ROWS.find((candidate) => candidate.name === "Streamable HTTP, modern")!;
    const { client, close } = await connected(row);
    try {
      await client.callTool("echo", { text: "a" });
      await client.listTools();
    } finally {
      await close();
    }
    const points = await telemetry.histograms();
    const named = (name: string, method: string) =>
      points.find((point) => point.name === name && point.attributes["mcp.method.name"] === method);
    for (const name of ["mcp.client.operation.duration", "mcp.server.operation.duration"]) {
      // The reader is cumulative over the file: other tests' calls are there too.
      const call = points.find(
        (point) =>
          point.name === name &&
          point.attributes["mcp.method.name"] === "tools/call" &&
          point.attributes["gen_ai.tool.name"] === "echo",
      );
      assert.ok(call, `${name} for tools/call`);
      assert.equal(call.unit, "s");
      assert.ok(call.count >= 1);
      assert.deepEqual(
        call.boundaries,
        [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
      );
      assert.equal(call.attributes["gen_ai.tool.name"], "echo");
      assert.equal(call.attributes["jsonrpc.request.id"], undefined, "no request ids on metrics");
      assert.ok(named(name, "tools/list"), `${name} for tools/list`);
    }
  });
});
