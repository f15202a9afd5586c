import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import type { JsonObject, JsonRpcMessage } from "../../src/jsonrpc/types.js";
import { McpServer } from "../../src/server/index.js";
import {
  InMemoryEventSource,
  type SubscriptionEvent,
  type SubscriptionEventSource,
} from "../../src/server/subscriptions.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import { until } from "../helpers/poll.js";

const MODERN = "2026-07-28";
const SUB_ID = "io.modelcontextprotocol/subscriptionId";

function meta(extra: JsonObject = {}): JsonObject {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    ...extra,
  };
}

function buildServer(options: Partial<ConstructorParameters<typeof McpServer>[0]> = {}) {
  const server = new McpServer({
    serverInfo: { name: "subs", version: "1" },
    onError: () => {},
    ...options,
  });
  server.tool({ name: "noop", inputSchema: { type: "object" } }, () => "ok");
  server.tool({ name: "chatty", inputSchema: { type: "object" } }, async (_args, context) => {
    await context.progress(1, 1);
    await context.log.error("loud");
    return "said things";
  });
  server.resource({ uri: "mem://a", name: "a" }, (uri) => [{ uri, text: "A" }]);
  return server;
}

/** A raw client: records every message on the wire, in order. */
function rawClient(server: McpServer) {
  const [serverSide, clientSide] = createMemoryPair();
  const connection = server.serve(serverSide);
  const received: JsonRpcMessage[] = [];
  clientSide.start({ message: (message) => received.push(message) });
  const send = (message: JsonObject) => clientSide.send(message as unknown as JsonRpcMessage);
  const listen = (id: number | string, notifications: JsonObject, extraMeta: JsonObject = {}) =>
    send({
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: { _meta: meta(extraMeta), notifications },
    });
  const cancel = (requestId: number | string) =>
    send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });
  const forId = (id: number | string) =>
    received.filter((message) => {
      const params = (message as { params?: JsonObject }).params;
      const result = (message as { result?: JsonObject }).result;
      const tagged = (params?._meta as JsonObject | undefined)?.[SUB_ID];
      const resultTag = (result?._meta as JsonObject | undefined)?.[SUB_ID];
      return tagged === id || resultTag === id || (message as { id?: unknown }).id === id;
    });
  return { received, send, listen, cancel, forId, connection, clientSide };
}

function methodOf(message: JsonRpcMessage): string | undefined {
  return "method" in message ? message.method : undefined;
}

describe("subscriptions/listen (server)", () => {
  it("acknowledges first with the honoured subset, then tags every notification", async () => {
    const server = buildServer();
    const client = rawClient(server);
    await client.listen(7, {
      toolsListChanged: true,
      promptsListChanged: true, // no prompts on this server: not honoured
      resourceSubscriptions: ["mem://a", "mem://b"],
    });
    await until(() => client.forId(7).length >= 1, "the acknowledgement");
    const [ack] = client.forId(7);
    assert.deepEqual(ack, {
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        _meta: { [SUB_ID]: 7 },
        notifications: { toolsListChanged: true, resourceSubscriptions: ["mem://a", "mem://b"] },
      },
    });
    server.tool({ name: "added", inputSchema: { type: "object" } }, () => "x");
    server.resourceUpdated("mem://a");
    server.resourceUpdated("mem://unwatched");
    await until(() => client.forId(7).length >= 3, "two notifications");
    await delay(20);
    const stream = client.forId(7);
    assert.deepEqual(
      stream.map((message) => methodOf(message)),
      [
        "notifications/subscriptions/acknowledged",
        "notifications/tools/list_changed",
        "notifications/resources/updated",
      ],
    );
    assert.deepEqual((stream[2] as { params: JsonObject }).params, {
      uri: "mem://a",
      _meta: { [SUB_ID]: 7 },
    });
    // Nothing untagged reached this modern channel.
    assert.equal(client.received.length, stream.length);
    await server.close();
  });

  it("never sends unrequested types: a prompts-only stream hears nothing when tools change", async () => {
    const server = buildServer();
    server.prompt({ name: "p" }, () => ({ messages: [] }));
    const client = rawClient(server);
    await client.listen("prompts", { promptsListChanged: true });
    await client.listen("tools", { toolsListChanged: true });
    await until(() => client.received.length >= 2, "two acknowledgements");
    server.tool({ name: "added", inputSchema: { type: "object" } }, () => "x");
    server.resourceUpdated("mem://a");
    await until(() => client.forId("tools").length >= 2, "tools/list_changed");
    await delay(30);
    assert.deepEqual(
      client.forId("prompts").map((message) => methodOf(message)),
      ["notifications/subscriptions/acknowledged"],
    );
    server.prompt({ name: "q" }, () => ({ messages: [] }));
    await until(() => client.forId("prompts").length >= 2, "prompts/list_changed");
    assert.equal(methodOf(client.forId("prompts")[1]!), "notifications/prompts/list_changed");
    assert.equal(client.forId("tools").length, 2);
    await server.close();
  });

  it("demultiplexes concurrent streams; cancelling one leaves the others alive", async () => {
    const server = buildServer();
    const client = rawClient(server);
    await client.listen(1, { toolsListChanged: true });
    await client.listen(2, { toolsListChanged: true, resourceSubscriptions: ["mem://a"] });
    await until(() => client.received.length >= 2, "two acknowledgements");
    server.tool({ name: "t1", inputSchema: { type: "object" } }, () => "x");
    await until(() => client.received.length >= 4, "one change on each stream");
    assert.equal(client.forId(1).length, 2);
    assert.equal(client.forId(2).length, 2);

    await client.cancel(1);
    await until(() => client.connection.session.activeRequests === 1, "stream 1 to end");
    server.tool({ name: "t2", inputSchema: { type: "object" } }, () => "x");
    server.resourceUpdated("mem://a");
    await until(() => client.forId(2).length >= 4, "stream 2 to go on");
    await delay(30);
    // Nothing more for the cancelled stream: no notification, no response.
    assert.equal(client.forId(1).length, 2);
    await server.close();
  });

  it("ends every open stream with a completion result on shutdown", async () => {
    const server = buildServer();
    const client = rawClient(server);
    await client.listen(10, { toolsListChanged: true });
    await client.listen(11, { resourcesListChanged: true });
    await until(() => client.received.length >= 2, "two acknowledgements");
    await server.close();
    await until(() => client.received.length >= 4, "two completion results");
    for (const id of [10, 11]) {
      const last = client.forId(id).at(-1) as { id?: unknown; result?: JsonObject };
      assert.equal(last.id, id);
      assert.equal(last.result?.resultType, "complete");
      const resultMeta = last.result?._meta as JsonObject;
      assert.equal(resultMeta[SUB_ID], id);
      assert.deepEqual(resultMeta["io.modelcontextprotocol/serverInfo"], {
        name: "subs",
        version: "1",
      });
    }
  });

  it("carries no progress or log messages, even when the listen request asks for them", async () => {
    const server = buildServer();
    const client = rawClient(server);
    await client.listen(
      "s",
      { toolsListChanged: true },
      { progressToken: "p", "io.modelcontextprotocol/logLevel": "debug" },
    );
    await client.send({
      jsonrpc: "2.0",
      id: "call",
      method: "tools/call",
      params: {
        name: "chatty",
        _meta: meta({ progressToken: "c", "io.modelcontextprotocol/logLevel": "debug" }),
      },
    });
    await until(
      () => client.received.some((message) => "id" in message && message.id === "call"),
      "the call",
    );
    server.tool({ name: "added", inputSchema: { type: "object" } }, () => "x");
    await until(() => client.forId("s").length >= 2, "the change");
    const methods = client.forId("s").map((message) => methodOf(message));
    assert.deepEqual(methods, [
      "notifications/subscriptions/acknowledged",
      "notifications/tools/list_changed",
    ]);
    // The call's own progress and log went out untagged, as request-scoped notifications.
    const progress = client.received.filter(
      (message) => methodOf(message) === "notifications/progress",
    );
    assert.equal(progress.length, 1);
    assert.equal((progress[0] as { params: JsonObject }).params._meta as unknown, undefined);
    await server.close();
  });

  it("rejects a malformed filter with -32602 and legacy sessions with -32601", async () => {
    const server = buildServer();
    const client = rawClient(server);
    await client.listen(1, { toolsListChanged: "yes" });
    await client.send({
      jsonrpc: "2.0",
      id: 2,
      method: "subscriptions/listen",
      params: { _meta: meta() },
    });
    await until(() => client.received.length >= 2, "two errors");
    for (const message of client.received) {
      assert.equal((message as { error?: { code: number } }).error?.code, -32602);
    }
    await server.close();

    const legacyServer = buildServer();
    const legacy = rawClient(legacyServer);
    await legacy.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "old", version: "1" },
      },
    });
    await legacy.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await legacy.send({
      jsonrpc: "2.0",
      id: 2,
      method: "subscriptions/listen",
      params: { notifications: { toolsListChanged: true } },
    });
    await until(() => legacy.received.length >= 2, "the legacy reply");
    assert.equal((legacy.received[1] as { error?: { code: number } }).error?.code, -32601);
    // Legacy sessions keep their own (untagged) notifications.
    legacyServer.tool({ name: "added", inputSchema: { type: "object" } }, () => "x");
    await until(() => legacy.received.length >= 3, "legacy list_changed");
    assert.deepEqual(legacy.received[2], {
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
    });
    await legacyServer.close();
  });

  it("takes its events from a replaceable source, shared between server instances", async () => {
    const bus = new InMemoryEventSource();
    const published: SubscriptionEvent[] = [];
    const spy: SubscriptionEventSource = {
      publish: (event) => {
        published.push(event);
        bus.publish(event);
      },
      subscribe: (listener) => bus.subscribe(listener),
    };
    const first = buildServer({ subscriptionEvents: spy });
    const second = buildServer({ subscriptionEvents: spy });
    published.length = 0; // registrations while building
    const client = rawClient(second);
    await client.listen(1, { toolsListChanged: true, resourceSubscriptions: ["mem://a"] });
    await until(() => client.received.length >= 1, "the acknowledgement");
    // A change on the first instance reaches a stream held by the second.
    first.tool({ name: "elsewhere", inputSchema: { type: "object" } }, () => "x");
    first.resourceUpdated("mem://a");
    await until(() => client.received.length >= 3, "both events");
    assert.deepEqual(published, [
      { type: "listChanged", kind: "tools" },
      { type: "resourceUpdated", uri: "mem://a" },
    ]);
    const listeners = bus.listenerCount;
    await client.cancel(1);
    await until(() => bus.listenerCount === listeners - 1, "the stream to leave the source");
    await first.close();
    await second.close();
  });
});
