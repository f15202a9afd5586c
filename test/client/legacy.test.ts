import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { LocalError } from "../../src/jsonrpc/errors.js";
import type { JsonObject, JsonRpcMessage } from "../../src/jsonrpc/types.js";
import type { CloseInfo, Transport, TransportReceiver } from "../../src/protocol/transport.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import { until } from "../helpers/poll.js";
import { errorReply, FakeServer, fakePair, initializeResult } from "./fake-server.js";

const clientInfo = { name: "test-client", version: "0.0.1" };

function legacyServer(server: FakeServer): FakeServer {
  return server
    .on("server/discover", errorReply(-32601, "Method not found"))
    .on("initialize", initializeResult());
}

describe("legacy connections", () => {
  it("answers server requests through handlers, and -32601 for missing ones", async () => {
    const { transport, server } = fakePair();
    legacyServer(server);
    const client = new McpClient({
      clientInfo,
      handlers: {
        roots: () => [{ uri: "file:///work", name: "work" }],
        elicitation: async (params) => ({ action: "accept", content: { echoed: params.message } }),
      },
    });
    await client.connect(transport);
    assert.deepEqual(server.requests("initialize")[0]?.params?.capabilities, {
      roots: {},
      elicitation: {},
    });

    const roots = await server.request("roots/list");
    assert.deepEqual(roots, {
      jsonrpc: "2.0",
      id: (roots as { id: string }).id,
      result: { roots: [{ uri: "file:///work", name: "work" }] },
    });
    const elicited = await server.request("elicitation/create", {
      message: "hi",
      requestedSchema: {},
    });
    assert.deepEqual((elicited as { result: JsonObject }).result, {
      action: "accept",
      content: { echoed: "hi" },
    });
    const ping = await server.request("ping");
    assert.deepEqual((ping as { result: JsonObject }).result, {});
    const sampling = await server.request("sampling/createMessage", { messages: [], maxTokens: 5 });
    assert.ok("error" in sampling);
    assert.equal(sampling.error.code, -32601);
    assert.match(sampling.error.message, /no sampling handler configured/);
    await client.close();
  });

  it("speaks logging/setLevel, subscribe, ping and forwards notifications", async () => {
    const { transport, server } = fakePair();
    legacyServer(server)
      .on("logging/setLevel", { result: {} })
      .on("ping", { result: {} })
      .on("resources/subscribe", { result: {} })
      .on("resources/unsubscribe", { result: {} })
      .on("tools/list", { result: { tools: [], resultType: "ignored-on-legacy" } });
    const seen: Array<[string, JsonObject]> = [];
    const client = new McpClient({
      clientInfo,
      logLevel: "error",
      onNotification: (method, params) => seen.push([method, params]),
    });
    await client.connect(transport);
    // The server declared logging, so the configured level went out right after the handshake.
    assert.deepEqual(server.requests("logging/setLevel")[0]?.params, { level: "error" });
    await client.setLogLevel("debug");
    await client.ping();
    await client.subscribeResource("file:///a");
    await client.unsubscribeResource("file:///a");
    const tools = await client.listTools();
    assert.equal(tools.resultType, "ignored-on-legacy");
    await server.waitFor("tools/list");
    assert.deepEqual(server.methods(), [
      "server/discover",
      "initialize",
      "notifications/initialized",
      "logging/setLevel",
      "logging/setLevel",
      "ping",
      "resources/subscribe",
      "resources/unsubscribe",
      "tools/list",
    ]);
    // Legacy requests carry no protocol _meta.
    assert.deepEqual(server.requests("tools/list")[0]?.params, undefined);
    assert.deepEqual(server.requests("resources/subscribe")[0]?.params, { uri: "file:///a" });

    await server.notify("notifications/message", { level: "info", data: "hello" });
    await until(() => seen.length === 1, "the log notification");
    assert.deepEqual(seen[0], ["notifications/message", { level: "info", data: "hello" }]);

    const discovered = await client.discover();
    assert.deepEqual(discovered.supportedVersions, ["2025-11-25"]);
    assert.equal(discovered.instructions, "legacy instructions");
    await client.close();
  });

  it("re-initializes (and re-subscribes) a restarted server before sending anything else", async () => {
    const transport = new RestartingTransport((server) => {
      legacyServer(server)
        .on("tools/list", { result: { tools: [] } })
        .on("resources/subscribe", { result: {} })
        .on("slow", "silence");
    });
    const client = new McpClient({ clientInfo });
    await client.connect(transport);
    const first = transport.server;
    await first.waitFor("notifications/initialized");
    await client.subscribeResource("file:///watched");

    const inFlight = client.request("slow");
    await first.waitFor("slow");
    transport.interrupt();
    await assert.rejects(
      inFlight,
      (error: Error) => error instanceof LocalError && error.kind === "exited",
    );

    const pending = client.listTools(); // must wait for the new handshake
    await new Promise((resolve) => setTimeout(resolve, 20));
    transport.resume();
    await pending;
    assert.notEqual(transport.server, first);
    assert.deepEqual(transport.server.methods(), [
      "initialize",
      "notifications/initialized",
      "resources/subscribe",
      "tools/list",
    ]);
    assert.deepEqual(transport.server.requests("resources/subscribe")[0]?.params, {
      uri: "file:///watched",
    });
    await client.close();
  });
});

/**
 * Stands in for a supervised stdio transport: interrupt() loses the server, resume() brings up
 * a fresh one, and the receiver hears about both, as TransportReceiver describes.
 */
class RestartingTransport implements Transport {
  readonly closed: Promise<CloseInfo>;
  server!: FakeServer;
  private current!: Transport;
  private receiver: TransportReceiver | undefined;
  private queue: JsonRpcMessage[] | undefined;
  private resolveClosed!: (info: CloseInfo) => void;

  constructor(private readonly setup: (server: FakeServer) => void) {
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    this.spawn();
  }

  start(receiver: TransportReceiver): void {
    this.receiver = receiver;
    this.attach();
  }

  send(message: JsonRpcMessage): Promise<void> {
    // While restarting, sends wait for the fresh server.
    if (this.queue) this.queue.push(message);
    else return this.current.send(message);
    return Promise.resolve();
  }

  interrupt(): void {
    this.queue = [];
    void this.current.close();
    this.receiver?.interrupted?.(new LocalError("exited", "server exited; restarting"));
  }

  resume(): void {
    this.spawn();
    this.attach();
    const queued = this.queue ?? [];
    this.queue = undefined;
    this.receiver?.resumed?.();
    for (const message of queued) void this.current.send(message);
  }

  async close(): Promise<void> {
    await this.current.close();
    this.receiver?.closed?.({});
    this.resolveClosed({});
  }

  private spawn(): void {
    const [clientEnd, serverEnd] = createMemoryPair();
    this.current = clientEnd;
    this.server = new FakeServer(serverEnd);
    this.setup(this.server);
  }

  private attach(): void {
    const receiver = this.receiver!;
    this.current.start({ message: (message, context) => receiver.message(message, context) });
  }
}

describe("an aborted 2025-11-25 task-augmented call", () => {
  it("is cancelled with tasks/cancel once the task exists, never notifications/cancelled", async () => {
    const { transport, server } = fakePair();
    server
      .on("server/discover", errorReply(-32601, "Method not found"))
      .on("initialize", {
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } }, cancel: {} } },
          serverInfo: { name: "slow-tasks", version: "1" },
        },
      })
      .on("tools/list", {
        result: {
          tools: [
            {
              name: "long",
              inputSchema: { type: "object" },
              execution: { taskSupport: "required" },
            },
          ],
        },
      });
    let create: (reply: JsonObject) => void = () => {};
    server.on(
      "tools/call",
      () => new Promise((resolve) => (create = (result) => resolve({ result }))),
    );
    server.on("tasks/cancel", {
      result: { taskId: "t-1", status: "cancelled", createdAt: "2026-12-04T00:00:00Z", ttl: 60000 },
    });
    const client = new McpClient({ clientInfo });
    await client.connect(transport);
    await client.listTools();
    const abort = new AbortController();
    const call = client.callTool("long", {}, { signal: abort.signal });
    await until(() => server.requests("tools/call").length === 1);
    abort.abort();
    // The server creates the task after the abort: it is cancelled the way tasks are.
    create({
      task: { taskId: "t-1", status: "working", createdAt: "2026-12-04T00:00:00Z", ttl: 60000 },
    });
    await assert.rejects(
      call,
      (error: unknown) => error instanceof LocalError && error.kind === "aborted",
    );
    await until(() => server.requests("tasks/cancel").length === 1);
    assert.deepEqual(server.requests("tasks/cancel")[0]?.params, { taskId: "t-1" });
    const notifications = server.received
      .filter((message) => "method" in message && !("id" in message))
      .map((message) => (message as { method: string }).method);
    assert.deepEqual(notifications, ["notifications/initialized"]);
    await client.close();
  });
});
