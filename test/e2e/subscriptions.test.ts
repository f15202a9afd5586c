import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { McpClient } from "../../src/client/index.js";
import type { Subscription, SubscriptionNotification } from "../../src/client/subscription.js";
import { StdioClientTransport } from "../../src/transports/stdio/client.js";
import { SupervisedStdioTransport } from "../../src/transports/stdio/supervisor.js";
import { buildSubscriptionServer } from "../fixtures/subscriptions-server.js";
import { type Connector, memoryConnector, tcpConnector } from "../helpers/connectors.js";
import { until } from "../helpers/poll.js";

const fixture = new URL("../fixtures/subscriptions-server.js", import.meta.url).pathname;

const transports: Record<string, Connector> = {
  // The same server definition in a child process (the in-process instance goes unused).
  stdio: async () => ({
    transport: new StdioClientTransport({
      command: process.execPath,
      args: [fixture],
      stderr: "pipe",
    }),
    cleanup: async () => {},
  }),
  memory: memoryConnector,
  tcp: tcpConnector,
};

function collect(subscription: Subscription): SubscriptionNotification[] {
  const seen: SubscriptionNotification[] = [];
  void (async () => {
    for await (const notification of subscription) seen.push(notification);
  })();
  return seen;
}

const methods = (events: SubscriptionNotification[]) => events.map((event) => event.method);

for (const [transportName, connect] of Object.entries(transports)) {
  for (const era of ["modern", "legacy"] as const) {
    describe(`subscriptions over ${transportName}, era ${era}`, () => {
      it("streams run-time changes to the subscriptions that asked for them", async () => {
        const server = buildSubscriptionServer();
        const { transport, cleanup } = await connect(server);
        const client = new McpClient({ clientInfo: { name: "e2e", version: "1" }, era });
        await client.connect(transport);
        const tools = client.listen({ toolsListChanged: true });
        const prompts = client.listen({ promptsListChanged: true });
        const watched = client.listen({ resourceSubscriptions: ["mem://watched"] });
        assert.deepEqual(await tools.acknowledged, { toolsListChanged: true });
        await prompts.acknowledged;
        await watched.acknowledged;
        const [toolEvents, promptEvents, watchedEvents] = [tools, prompts, watched].map(collect);

        await client.callTool("add_tool");
        await client.callTool("touch", { uri: "mem://watched" });
        await client.callTool("touch", { uri: "mem://elsewhere" });
        await until(() => toolEvents!.length === 1 && watchedEvents!.length === 1, "events");
        assert.deepEqual(methods(toolEvents!), ["notifications/tools/list_changed"]);
        assert.deepEqual(methods(watchedEvents!), ["notifications/resources/updated"]);
        assert.equal(promptEvents!.length, 0);
        // The list is fresh: the change invalidated whatever was cached.
        assert.ok((await client.listAllTools()).some((tool) => tool.name === "extra_1"));

        await tools.close();
        await client.callTool("add_tool");
        await client.callTool("add_prompt");
        await until(() => promptEvents!.length === 1, "prompts/list_changed");
        await delay(30);
        assert.equal(toolEvents!.length, 1);
        assert.deepEqual(await tools.ended, { reason: "closed" });

        if (transportName !== "stdio") {
          // Only an in-process server can be shut down from here.
          await server.close();
          const expected = era === "modern" ? "completed" : "disconnected";
          assert.equal((await prompts.ended).reason, expected);
          assert.equal((await watched.ended).reason, expected);
        }
        await client.close();
        await server.close();
        await cleanup();
      });
    });
  }
}

describe("subscriptions under a supervisor", () => {
  for (const era of ["modern", "legacy"] as const) {
    it(`re-subscribes on its own after the ${era} server restarts`, async () => {
      const transport = new SupervisedStdioTransport({
        command: process.execPath,
        args: [fixture],
        stderr: "pipe",
        restart: { initialDelayMs: 10 },
      });
      const client = new McpClient({ clientInfo: { name: "e2e", version: "1" }, era });
      await client.connect(transport);
      const subscription = client.listen({
        toolsListChanged: true,
        resourceSubscriptions: ["mem://watched"],
      });
      await subscription.acknowledged;
      const events = collect(subscription);
      const firstPid = (await client.callTool("pid")).content;

      await client.callTool("crash");
      await until(() => transport.restarts === 1, "the restart");
      // The first call after the restart waits for the re-handshake (and re-subscription).
      assert.notDeepEqual((await client.callTool("pid")).content, firstPid);
      await client.callTool("touch", { uri: "mem://watched" });
      await client.callTool("add_tool");
      await until(() => events.length >= 2, "events from the new server");
      assert.deepEqual(methods(events).slice(-2), [
        "notifications/resources/updated",
        "notifications/tools/list_changed",
      ]);
      assert.equal(subscription.isEnded, false);
      await client.close();
      assert.notEqual((await subscription.ended).reason, "failed");
    });
  }
});
