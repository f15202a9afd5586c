/**
 * Caps on what subscriptions/listen may watch (issue 25.A3): a plain server (no watching
 * source) once took one listen with 100,000 uris. Per stream (maxUrisPerStream, default 1,000)
 * and per connection (maxUrisPerConnection, counted per principal on the shared modern HTTP
 * connection) a request past the cap is -32602 naming it; what a stream counted is given back
 * when it ends, so a connection whose streams closed holds nothing.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonObject, JsonRpcMessage } from "../../src/jsonrpc/types.js";
import { McpServer } from "../../src/server/index.js";
import { ListenUriCounter } from "../../src/server/listen-request.js";
import { InMemoryEventSource } from "../../src/server/subscriptions.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import { legacyClient } from "./tasks-helpers.js";

type Reply = {
  id?: unknown;
  result?: JsonObject;
  error?: { code: number; message: string; data?: JsonObject };
};

function build(subscriptions?: ConstructorParameters<typeof McpServer>[0]["subscriptions"]) {
  const events = new InMemoryEventSource();
  const server = new McpServer({
    serverInfo: { name: "limits", version: "1" },
    onError: () => {},
    subscriptionEvents: events,
    subscriptions,
  });
  server.resource({ uri: "mem://a", name: "a" }, (uri) => [{ uri, text: "A" }]);
  return { server, events };
}

function uris(count: number, from = 0): string[] {
  return Array.from({ length: count }, (_, i) => `mem://r/${from + i}`);
}

/** A modern client over a memory pair: listen() resolves with the ack, or the error reply. */
function client(server: McpServer) {
  const [serverSide, clientSide] = createMemoryPair();
  const connection = server.serve(serverSide);
  const waiting = new Map<unknown, (message: Reply) => void>();
  clientSide.start({
    message: (message: JsonRpcMessage) => {
      const reply = message as Reply & { method?: string; params?: JsonObject };
      const tag = (reply.params?._meta as JsonObject | undefined)?.[
        "io.modelcontextprotocol/subscriptionId"
      ];
      if (reply.method === "notifications/subscriptions/acknowledged")
        waiting.get(tag)?.({ result: reply.params });
      else if (reply.id !== undefined) waiting.get(reply.id)?.(reply);
    },
  });
  const send = (message: JsonObject) => clientSide.send(message as unknown as JsonRpcMessage);
  const listen = (id: number, notifications: JsonObject) =>
    new Promise<Reply>((resolve) => {
      waiting.set(id, resolve);
      void send({
        jsonrpc: "2.0",
        id,
        method: "subscriptions/listen",
        params: {
          notifications,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      });
    });
  /** Cancels stream `id`, then lets the server run until it has let go of the stream's uris. */
  const cancel = async (id: number) => {
    const before = connection.watchedUris;
    await send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
    for (let turn = 0; turn < 1000 && connection.watchedUris === before; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { connection, listen, cancel, close: () => clientSide.close() };
}

describe("subscriptions/listen: how many uris", () => {
  it("a plain server refuses more than 1,000 uris in one stream by default, naming the cap", async () => {
    const { server } = build();
    const peer = client(server);
    try {
      const refused = await peer.listen(1, { resourceSubscriptions: uris(100_000) });
      assert.equal(refused.error?.code, -32602);
      assert.match(
        refused.error!.message,
        /100000 resourceSubscriptions; this server allows at most 1000 per stream/,
      );
      assert.equal(refused.error?.data?.limit, 1000);
      const taskIds = await peer.listen(2, { taskIds: uris(1001) });
      assert.equal(taskIds.error?.code, -32602, "task ids are capped alike");
      assert.equal(peer.connection.watchedUris, 0);
    } finally {
      await peer.close();
      await server.close();
    }
  });

  it("caps one connection's open streams together, and gives everything back when they end", async () => {
    const { server, events } = build({ maxUrisPerStream: 5, maxUrisPerConnection: 8 });
    const baseline = events.listenerCount;
    const peer = client(server);
    try {
      assert.equal(
        (await peer.listen(1, { resourceSubscriptions: uris(6) })).error?.data?.limit,
        5,
      );
      const first = await peer.listen(2, { resourceSubscriptions: uris(5) });
      const acknowledged = first.result?.notifications as JsonObject | undefined;
      assert.deepEqual(acknowledged?.resourceSubscriptions, uris(5));
      const over = await peer.listen(3, { resourceSubscriptions: uris(4, 10) });
      assert.equal(over.error?.code, -32602);
      assert.match(
        over.error!.message,
        /already watch 5 resource uris; this server allows at most 8/,
      );
      assert.ok((await peer.listen(4, { resourceSubscriptions: uris(3, 20) })).result);
      assert.equal(peer.connection.watchedUris, 8);
      assert.equal(events.listenerCount, baseline + 2);
      await peer.cancel(2);
      await peer.cancel(4);
      assert.equal(peer.connection.watchedUris, 0, "the connection's counts are emptied");
      assert.equal(events.listenerCount, baseline, "no stream is left listening");
      // Room again for a full stream.
      assert.ok((await peer.listen(5, { resourceSubscriptions: uris(5, 30) })).result);
    } finally {
      await peer.close();
      await server.close();
    }
  });

  it("counts per principal on one connection, each stream's release once", () => {
    const counter = new ListenUriCounter();
    const alice = counter.hold({ sub: "alice" }, 8, 8);
    assert.throws(() => counter.hold({ sub: "alice" }, 1, 8), /already watch 8/);
    const bob = counter.hold({ sub: "bob" }, 8, 8);
    const anonymous = counter.hold(undefined, 3, 8);
    assert.equal(counter.total, 19);
    alice();
    alice();
    bob();
    anonymous();
    assert.equal(counter.total, 0);
    counter.hold({ sub: "bob" }, 8, 8);
  });

  it("a legacy session's resources/subscribe stops at maxUrisPerConnection", async () => {
    const { server } = build({ maxUrisPerConnection: 2 });
    const legacy = await legacyClient(server, {});
    try {
      for (const uri of uris(2))
        assert.ok((await legacy.call("resources/subscribe", { uri })).result);
      // The same uri again is no new subscription.
      assert.ok((await legacy.call("resources/subscribe", { uri: uris(1)[0]! })).result);
      const refused = await legacy.call("resources/subscribe", { uri: "mem://r/99" });
      assert.equal(refused.error?.code, -32602);
      assert.match(
        refused.error!.message,
        /already has 2 resource subscriptions; this server allows at most 2/,
      );
    } finally {
      await legacy.close();
      await server.close();
    }
  });
});
