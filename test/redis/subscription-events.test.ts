/**
 * RedisSubscriptionEventSource: what one instance publishes its own listeners hear at once
 * (synchronously, once) and the other instances through Redis (a burst of list changes as one
 * message); anything malformed on the channel is reported and dropped; with Redis down a publish still reaches local listeners and
 * is reported, never thrown; after Redis comes back the instances hear each other again.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { RedisSubscriptionEventSource } from "../../src/redis/index.js";
import type { SubscriptionEvent } from "../../src/server/subscriptions.js";
import { until } from "../helpers/poll.js";
import { sharedRedis, startPrivateRedis } from "../helpers/redis.js";

/** The event as published (without the id the source gave it), and that id. */
function hear(into: SubscriptionEvent[], ids: (string | undefined)[] = []) {
  return ({ id, ...event }: SubscriptionEvent) => {
    into.push(event as SubscriptionEvent);
    ids.push(id);
  };
}

describe("RedisSubscriptionEventSource", () => {
  it("local listeners hear at once, other instances through Redis, each event once", async () => {
    const redis = await sharedRedis("RedisSubscriptionEventSource fan-out");
    const errors: Error[] = [];
    const options = { prefix: redis.prefix, onError: (error: Error) => errors.push(error) };
    const a = new RedisSubscriptionEventSource(redis.client, options);
    const b = new RedisSubscriptionEventSource(redis.client, options);
    after(async () => {
      await Promise.all([a.close(), b.close()]);
      await redis.cleanup();
    });
    await Promise.all([a.ready, b.ready]);
    const onA: SubscriptionEvent[] = [];
    const onB: SubscriptionEvent[] = [];
    const idsA: (string | undefined)[] = [];
    const idsB: (string | undefined)[] = [];
    a.subscribe(hear(onA, idsA));
    b.subscribe(hear(onB, idsB));

    const update: SubscriptionEvent = { type: "resourceUpdated", uri: "test://r" };
    a.publish(update);
    assert.deepEqual(onA, [update], "heard here synchronously");
    await until(() => onB.length === 1, "the event on B");
    assert.deepEqual(onB, [update]);
    // One id for the event on both instances (a legacy stream moving between them uses it).
    assert.equal(typeof idsA[0], "string");
    assert.equal(idsB[0], idsA[0]);
    const task: SubscriptionEvent = { type: "taskStatus", owner: "o", task: { taskId: "t" } };
    // A burst of list changes (a server registering its tools) crosses as one message.
    for (let i = 0; i < 5; i++) b.publish({ type: "listChanged", kind: "tools" });
    await new Promise((resolve) => setImmediate(resolve));
    // Sent after the burst on the same connection: once A has it, it has the burst too.
    b.publish(task);
    await until(() => onA.length === 3, "B's events on A");
    assert.deepEqual(onA.slice(1), [{ type: "listChanged", kind: "tools" }, task]);
    assert.equal(onB.length, 7, "B heard each of its own events once, not again through Redis");

    // The channel is shared: a stranger's junk is reported and goes nowhere.
    await redis.client.publish(`${redis.prefix}events`, "not json");
    await redis.client.publish(
      `${redis.prefix}events`,
      JSON.stringify({ from: "x", message: { type: "listChanged", kind: "everything" } }),
    );
    await until(() => errors.length >= 4, "the reports of both sources");
    assert.equal(onA.length, 3);
    assert.ok(errors.every((error) => /malformed message on .*events ignored/.test(error.message)));
  });

  it("with Redis down a publish reaches local listeners and is reported; afterwards all is back", async () => {
    const server = await startPrivateRedis("RedisSubscriptionEventSource across a restart");
    const client = await server.connect();
    const errors: Error[] = [];
    const options = { commandTimeoutMs: 1000, onError: (error: Error) => errors.push(error) };
    const a = new RedisSubscriptionEventSource(client, options);
    const b = new RedisSubscriptionEventSource(client, options);
    after(async () => {
      await Promise.all([a.close(), b.close()]);
      await server.stop();
    });
    await Promise.all([a.ready, b.ready]);
    const onA: SubscriptionEvent[] = [];
    const onB: SubscriptionEvent[] = [];
    a.subscribe(hear(onA));
    b.subscribe(hear(onB));

    await server.kill();
    const lost: SubscriptionEvent = { type: "resourceUpdated", uri: "test://while-down" };
    assert.doesNotThrow(() => a.publish(lost));
    assert.deepEqual(onA, [lost]);
    await until(
      () =>
        errors.some((error) =>
          /resourceUpdated event reached only this instance/.test(error.message),
        ),
      "the report of the lost event",
    );

    await server.restart();
    const back: SubscriptionEvent = { type: "resourceUpdated", uri: "test://back" };
    // Pub/sub reconnects in the background; publish until B hears one.
    for (let i = 0; i < 400 && onB.length === 0; i++) {
      a.publish(back);
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.deepEqual(onB[0], back);
  });
});
