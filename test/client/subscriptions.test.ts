import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { McpClient } from "../../src/client/index.js";
import type { Subscription, SubscriptionNotification } from "../../src/client/subscription.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/types.js";
import type { Transport } from "../../src/protocol/transport.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import { buildSubscriptionServer } from "../fixtures/subscriptions-server.js";
import { until } from "../helpers/poll.js";

const SUB_ID = "io.modelcontextprotocol/subscriptionId";

/** The client's end of a memory pair, recording what the client sends. */
function connectRecorded(era: "modern" | "legacy") {
  const server = buildSubscriptionServer();
  const [serverSide, clientSide] = createMemoryPair();
  const connection = server.serve(serverSide);
  const sent: JsonRpcMessage[] = [];
  const recording: Transport = {
    closed: clientSide.closed,
    start: (receiver) => clientSide.start(receiver),
    close: () => clientSide.close(),
    send: (message, options) => {
      sent.push(message);
      return clientSide.send(message, options);
    },
  };
  const client = new McpClient({ clientInfo: { name: "subs-client", version: "1" }, era });
  return { server, connection, sent, client, transport: recording };
}

/** Reads notifications into an array as they come. */
function collect(subscription: Subscription): SubscriptionNotification[] {
  const seen: SubscriptionNotification[] = [];
  void (async () => {
    for await (const notification of subscription) seen.push(notification);
  })();
  return seen;
}

function sentMethods(sent: JsonRpcMessage[]): string[] {
  return sent.flatMap((message) => ("method" in message ? [message.method] : []));
}

describe("McpClient.listen on a modern server", () => {
  it("acknowledges, delivers tagged notifications, demultiplexes and cancels on close", async () => {
    const { server, connection, sent, client, transport } = connectRecorded("modern");
    await client.connect(transport);
    const tools = client.listen({ toolsListChanged: true, promptsListChanged: true });
    const watched = client.listen({ resourceSubscriptions: ["mem://watched"] });
    assert.deepEqual(await tools.acknowledged, {
      toolsListChanged: true,
      promptsListChanged: true,
    });
    assert.deepEqual(await watched.acknowledged, { resourceSubscriptions: ["mem://watched"] });
    const toolEvents = collect(tools);
    const watchedEvents = collect(watched);

    await client.callTool("add_tool");
    await client.callTool("touch", { uri: "mem://watched" });
    await until(() => toolEvents.length === 1 && watchedEvents.length === 1, "one event each");
    assert.equal(toolEvents[0]!.method, "notifications/tools/list_changed");
    assert.equal(watchedEvents[0]!.method, "notifications/resources/updated");
    assert.equal(watchedEvents[0]!.params.uri, "mem://watched");
    const ids = [toolEvents[0]!, watchedEvents[0]!].map(
      (event) => (event.params._meta as Record<string, unknown>)[SUB_ID],
    );
    assert.notEqual(ids[0], ids[1]);

    await tools.close();
    assert.deepEqual(await tools.ended, { reason: "closed" });
    const cancelled = sent.find(
      (message) => "method" in message && message.method === "notifications/cancelled",
    ) as { params: { requestId: unknown } } | undefined;
    assert.equal(cancelled?.params.requestId, ids[0]);
    await until(() => connection.session.activeRequests === 1, "the server to drop the stream");

    await client.callTool("add_prompt");
    await client.callTool("touch", { uri: "mem://watched" });
    await until(() => watchedEvents.length === 2, "the second update");
    await delay(20);
    assert.equal(toolEvents.length, 1); // closed: nothing more
    await server.close();
    assert.equal((await watched.ended).reason, "completed");
    await client.close();
  });

  it("invalidates cached lists on list_changed heard through a subscription", async () => {
    const server = buildSubscriptionServer();
    // Long-lived list results, so only an invalidation can make the client ask again.
    (server.options as { caching?: object }).caching = { "tools/list": { ttlMs: 60_000 } };
    const [serverSide, clientSide] = createMemoryPair();
    server.connect(serverSide);
    const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era: "modern" });
    await client.connect(clientSide);
    const before = (await client.listTools()).tools.length;
    await client.callTool("add_tool");
    // Cached, and a modern server tells no one without a listen stream.
    assert.equal((await client.listTools()).tools.length, before);
    const subscription = client.listen({ toolsListChanged: true });
    await subscription.acknowledged;
    const events = collect(subscription);
    await client.callTool("add_tool");
    await until(() => events.length === 1, "tools/list_changed");
    assert.equal((await client.listTools()).tools.length, before + 2);
    await client.close();
    assert.equal((await subscription.ended).reason, "disconnected");
  });

  it("ends iteration cleanly when the server shuts down", async () => {
    const server = buildSubscriptionServer();
    const [serverSide, clientSide] = createMemoryPair();
    server.connect(serverSide);
    const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era: "modern" });
    await client.connect(clientSide);
    const subscription = client.listen({ toolsListChanged: true });
    await subscription.acknowledged;
    const shutdown = server.close();
    const seen: string[] = [];
    for await (const event of subscription) seen.push(event.method);
    await shutdown;
    assert.deepEqual(seen, []);
    assert.deepEqual(await subscription.ended, { reason: "completed" });
    await client.close();
  });
});

describe("McpClient.listen on a legacy server", () => {
  it("maps onto resources/subscribe and list_changed, and unsubscribes on close", async () => {
    const { server, sent, client, transport } = connectRecorded("legacy");
    await client.connect(transport);
    const prompts = client.listen({ promptsListChanged: true });
    const all = client.listen({
      toolsListChanged: true,
      resourceSubscriptions: ["mem://watched"],
    });
    const twin = client.listen({ resourceSubscriptions: ["mem://watched"] });
    assert.deepEqual(await prompts.acknowledged, { promptsListChanged: true });
    assert.deepEqual(await all.acknowledged, {
      toolsListChanged: true,
      resourceSubscriptions: ["mem://watched"],
    });
    await twin.acknowledged;
    // One resources/subscribe per uri, however many subscriptions want it.
    assert.equal(sentMethods(sent).filter((m) => m === "resources/subscribe").length, 1);
    const promptEvents = collect(prompts);
    const allEvents = collect(all);

    await client.callTool("add_tool");
    await client.callTool("touch", { uri: "mem://watched" });
    await until(() => allEvents.length === 2, "both events");
    assert.deepEqual(
      allEvents.map((event) => event.method),
      ["notifications/tools/list_changed", "notifications/resources/updated"],
    );
    assert.equal(promptEvents.length, 0); // a tool change is not for a prompts-only filter

    await all.close();
    assert.equal(sentMethods(sent).filter((m) => m === "resources/unsubscribe").length, 0);
    await twin.close();
    assert.equal(sentMethods(sent).filter((m) => m === "resources/unsubscribe").length, 1);
    await client.callTool("add_prompt");
    await until(() => promptEvents.length === 1, "prompts/list_changed");
    await client.close();
    assert.equal((await prompts.ended).reason, "disconnected");
    await server.close();
  });
});
