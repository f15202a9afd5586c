/**
 * Subscriptions, logs and a child's own questions through `mcpwire gateway` between official
 * peers: the official `@modelcontextprotocol/client` in both eras on the HTTP side, the official
 * server-everything (legacy, stdio) as the child.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  Client,
  type ClientOptions,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import {
  type RunningGateway,
  SERVER_EVERYTHING,
  sentToChild,
  sentToChildAtLeast,
  startGateway,
} from "./gateway-run.js";
import { stop, waitFor } from "./run-cli.js";

const URI = "demo://resource/dynamic/text/1";
const MODERN: ClientOptions = { versionNegotiation: { mode: { pin: "2026-07-28" } } };

interface Official {
  client: Client;
  seen: Array<{ method: string; params: Record<string, unknown> }>;
}

async function official(url: string, options: ClientOptions): Promise<Official> {
  const client = new Client({ name: "gateway-interop", version: "1.0.0" }, options);
  const seen: Official["seen"] = [];
  for (const method of ["notifications/message", "notifications/resources/updated"] as const) {
    client.setNotificationHandler(method, (notification) => {
      seen.push({ method, params: notification.params as Record<string, unknown> });
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, seen };
}

describe("mcpwire gateway: official clients, server-everything as the child", () => {
  let run: RunningGateway;
  before(async () => {
    run = await startGateway(SERVER_EVERYTHING, ["--verbose"]);
  });
  after(() => stop(run.gateway));

  it("relays subscriptions in both eras with one child subscription, and logs to the session that asked", async () => {
    const legacy = await official(run.url, {});
    const modern = await official(run.url, MODERN);
    try {
      assert.equal(legacy.client.getNegotiatedProtocolVersion(), "2025-11-25");
      assert.equal(modern.client.getNegotiatedProtocolVersion(), "2026-07-28");
      assert.deepEqual(legacy.client.getServerCapabilities()?.resources, {
        subscribe: true,
        listChanged: true,
      });
      await legacy.client.setLoggingLevel("info");
      await legacy.client.subscribeResource({ uri: URI });
      const subscription = await modern.client.listen({ resourceSubscriptions: [URI] });
      assert.deepEqual(subscription.honoredFilter.resourceSubscriptions, [URI]);
      assert.equal(await sentToChildAtLeast(run.gateway, /"method":"resources\/subscribe"/, 1), 1);

      // The child logged the subscription while no call was in flight: to the session that
      // set a level (on its GET stream), never onto the modern listen stream.
      await waitFor("the subscribe log", () =>
        legacy.seen.find(
          (n) =>
            n.method === "notifications/message" && String(n.params.data).includes(`URI: ${URI}`),
        ),
      );

      // Sends an update for every subscribed uri at once (then every 5 s).
      await modern.client.callTool({ name: "toggle-subscriber-updates", arguments: {} });
      for (const { seen } of [legacy, modern]) {
        await waitFor("the resource update", () =>
          seen.find((n) => n.method === "notifications/resources/updated" && n.params.uri === URI),
        );
      }
      assert.deepEqual(
        modern.seen.filter((n) => n.method === "notifications/message"),
        [],
      );

      await subscription.close();
      await legacy.client.unsubscribeResource({ uri: URI });
      await waitFor("the child to be unsubscribed", () =>
        sentToChild(run.gateway, /"method":"resources\/unsubscribe"/) === 1 ? true : undefined,
      );
      await modern.client.callTool({ name: "toggle-subscriber-updates", arguments: {} });
    } finally {
      await legacy.client.close();
      await modern.client.close();
    }
  });
});
