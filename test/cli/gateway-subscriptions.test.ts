/**
 * Subscriptions through `mcpwire gateway`, whatever the child's era: modern listen streams and
 * legacy resources/subscribe sessions on the HTTP side share one child subscription per uri,
 * hear its updates and list changes, and the child is unsubscribed when the last one goes.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Subscription, SubscriptionNotification } from "../../src/client/subscription.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import {
  connectClient,
  fixture,
  type RunningGateway,
  sentToChild,
  sentToChildAtLeast,
  startGateway,
} from "./gateway-run.js";
import { stop, waitFor } from "./run-cli.js";

const WATCHED = "mem://watched";

/** The next notification of a subscription (fails after a generous while). */
async function next(subscription: Subscription): Promise<SubscriptionNotification> {
  const iterator = subscription[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("no notification within 10 s")), 10_000);
  });
  try {
    const item = await Promise.race([iterator.next(), timeout]);
    assert.equal(item.done, false, "the subscription ended");
    return item.value as SubscriptionNotification;
  } finally {
    clearTimeout(timer);
  }
}

for (const childEra of ["modern", "legacy"] as const) {
  describe(`gateway subscriptions, ${childEra} child`, () => {
    let run: RunningGateway;
    // How the gateway subscribes to WATCHED on the child, and how it lets go.
    const childSubscribes =
      childEra === "modern"
        ? /"method":"subscriptions\/listen".*mem:\/\/watched/
        : /"method":"resources\/subscribe".*mem:\/\/watched/;
    const childUnsubscribes =
      childEra === "modern"
        ? /"method":"notifications\/cancelled"/
        : /"method":"resources\/unsubscribe"/;

    before(async () => {
      run = await startGateway([fixture("subscriptions-server")], ["--era", childEra, "--verbose"]);
    });
    after(() => stop(run.gateway));

    it("advertises subscribe and listChanged as the child does", async () => {
      for (const era of ["modern", "legacy"] as const) {
        const { client } = await connectClient(run.url, era);
        try {
          assert.deepEqual(client.serverCapabilities?.resources, {
            subscribe: true,
            listChanged: true,
          });
          assert.deepEqual(client.serverCapabilities?.tools, { listChanged: true });
        } finally {
          await client.close();
        }
      }
    });

    it("shares one child subscription per uri between listen streams and legacy sessions", async () => {
      const modernA = await connectClient(run.url, "modern");
      const modernB = await connectClient(run.url, "modern");
      const legacy = await connectClient(run.url, "legacy");
      const trigger = await connectClient(run.url, "modern");
      const clients = [modernA, modernB, legacy, trigger];
      try {
        const a = modernA.client.listen({
          resourceSubscriptions: [WATCHED],
          toolsListChanged: true,
        });
        const b = modernB.client.listen({ resourceSubscriptions: [WATCHED] });
        assert.deepEqual(await a.acknowledged, {
          toolsListChanged: true,
          resourceSubscriptions: [WATCHED],
        });
        assert.deepEqual(await b.acknowledged, { resourceSubscriptions: [WATCHED] });
        await legacy.client.subscribeResource(WATCHED);
        assert.equal(
          await sentToChildAtLeast(run.gateway, childSubscribes, 1),
          1,
          run.gateway.stderr(),
        );

        await trigger.client.callTool("touch", { uri: WATCHED });
        for (const subscription of [a, b]) {
          const update = await next(subscription);
          assert.equal(update.method, "notifications/resources/updated");
          assert.equal(update.params.uri, WATCHED);
        }
        await waitFor("the legacy session's update", () =>
          legacy.seen.find((n) => n.method === "notifications/resources/updated"),
        );
        // A uri nobody subscribed: the child tells the gateway, the gateway tells nobody.
        await trigger.client.callTool("touch", { uri: "mem://other" });

        await trigger.client.callTool("add_tool");
        assert.equal((await next(a)).method, "notifications/tools/list_changed");
        await waitFor("the legacy session's list change", () =>
          legacy.seen.find((n) => n.method === "notifications/tools/list_changed"),
        );
        // b asked for no list changes: its next message is the next update of WATCHED.
        await trigger.client.callTool("touch", { uri: WATCHED });
        assert.equal((await next(b)).method, "notifications/resources/updated");
        assert.equal((await next(a)).params.uri, WATCHED);
        assert.ok(
          legacy.seen.every((n) => n.params.uri !== "mem://other"),
          JSON.stringify(legacy.seen),
        );

        // The child lets go only when the last HTTP subscriber does.
        await a.close();
        await legacy.client.unsubscribeResource(WATCHED);
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.equal(sentToChild(run.gateway, childUnsubscribes), 0);
        await b.close();
        await waitFor("the child to be unsubscribed", () =>
          sentToChild(run.gateway, childUnsubscribes) === 1 ? true : undefined,
        );
        // Wanted again: subscribed again.
        const again = modernA.client.listen({ resourceSubscriptions: [WATCHED] });
        await again.acknowledged;
        assert.equal(await sentToChildAtLeast(run.gateway, childSubscribes, 2), 2);
        await again.close();
      } finally {
        await Promise.all(clients.map(({ client }) => client.close()));
      }
    });

    it("lets a legacy session's subscriptions go when the session ends", async () => {
      const before = sentToChild(run.gateway, childUnsubscribes);
      const legacy = await connectClient(run.url, "legacy");
      await legacy.client.subscribeResource("mem://session-bound");
      await legacy.client.close(); // DELETE ends the session
      await waitFor("the child to be unsubscribed", () =>
        sentToChild(run.gateway, childUnsubscribes) > before ? true : undefined,
      );
    });
  });
}

describe("gateway subscriptions, a child without them", () => {
  let run: RunningGateway;
  before(async () => {
    run = await startGateway([fixture("gateway-plain-server")]);
  });
  after(() => stop(run.gateway));

  it("advertises neither subscribe nor listChanged, and refuses subscriptions", async () => {
    const modern = await connectClient(run.url, "modern");
    const legacy = await connectClient(run.url, "legacy");
    try {
      assert.deepEqual(modern.client.serverCapabilities?.resources, {});
      assert.deepEqual(modern.client.serverCapabilities?.tools, {});
      const listen = modern.client.listen({
        resourceSubscriptions: ["mem://plain"],
        toolsListChanged: true,
      });
      // The gateway's acknowledgement promises nothing the child does not offer.
      assert.deepEqual(await listen.acknowledged, {});
      await listen.close();
      await assert.rejects(legacy.client.subscribeResource("mem://plain"), JsonRpcError);
    } finally {
      await modern.client.close();
      await legacy.client.close();
    }
  });
});
