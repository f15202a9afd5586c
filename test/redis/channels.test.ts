/**
 * RedisChannels on a real Redis: what one client publishes another hears; all users of one
 * client share a single subscribing connection, closed with the last release; and after Redis
 * is killed and restarted, the same objects publish and hear again without being rebuilt.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createClient, type RedisClientType } from "redis";
import { RedisChannels, type RedisClientLike, RedisCommands } from "../../src/redis/index.js";
import { sharedRedis, startPrivateRedis } from "../helpers/redis.js";

/** Subscribes; `message` resolves with the next message `channels` hears on `channel`. */
async function nextMessage(channels: RedisChannels, channel: string) {
  let heard: (text: string) => void = () => {};
  const message = new Promise<string>((resolve) => {
    heard = resolve;
  });
  const stop = await channels.listen(channel, (text) => heard(text));
  return { message, stop };
}

async function clientCount(client: RedisClientType): Promise<number> {
  const list = (await client.sendCommand(["CLIENT", "LIST", "TYPE", "pubsub"])) as string;
  return list.split("\n").filter((line) => line.includes(" name=mcpwire-channels-test ")).length;
}

describe("RedisChannels", () => {
  it("a message published through one client reaches a listener on another", async () => {
    const redis = await sharedRedis("RedisChannels publish/listen");
    const other = redis.client.duplicate();
    after(async () => {
      other.destroy();
      await redis.cleanup();
    });
    await other.connect();
    // node-redis's own client type is what users pass: it must fit the structural type.
    const mine: RedisClientLike = redis.client;
    const theirs: RedisClientLike = other;
    const listening = RedisChannels.acquire(new RedisCommands(mine, { prefix: redis.prefix }));
    const publishing = RedisChannels.acquire(new RedisCommands(theirs, { prefix: redis.prefix }));
    const channel = `${redis.prefix}news`;
    let heard: string | undefined;
    const stop = await listening.listen(channel, (text) => {
      heard = text;
    });
    await publishing.publish(channel, "hello");
    // PUBLISH returns after Redis delivered to subscribers' sockets; poll the local side.
    for (let i = 0; i < 200 && heard === undefined; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(heard, "hello");
    await stop();
    listening.release();
    publishing.release();
  });

  it("users of one client share one pub/sub connection, closed with the last release", async () => {
    const redis = await sharedRedis("RedisChannels connection sharing");
    const named = createClient({ url: redis.url, name: "mcpwire-channels-test" });
    named.on("error", () => {});
    await named.connect();
    after(async () => {
      named.destroy();
      await redis.cleanup();
    });
    const commands = new RedisCommands(named, { prefix: redis.prefix });
    const first = RedisChannels.acquire(commands);
    const second = RedisChannels.acquire(commands);
    assert.equal(first, second);
    await first.listen(`${redis.prefix}a`, () => {});
    await second.listen(`${redis.prefix}b`, () => {});
    assert.equal(await clientCount(redis.client), 1);
    first.release();
    assert.equal(await clientCount(redis.client), 1);
    second.release();
    for (let i = 0; i < 200 && (await clientCount(redis.client)) > 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(await clientCount(redis.client), 0);
  });

  it("publishing fails cleanly while Redis is down, and both ends work again after a restart", async () => {
    const server = await startPrivateRedis("RedisChannels across a Redis restart");
    const client = await server.connect();
    const reported: Error[] = [];
    after(async () => {
      await server.stop();
    });
    const channels = RedisChannels.acquire(
      new RedisCommands(client, { commandTimeoutMs: 1000, onError: (e) => reported.push(e) }),
    );
    const channel = "mcpwire:restart-test";
    const first = await nextMessage(channels, channel);
    await channels.publish(channel, "before");
    assert.equal(await first.message, "before");
    await first.stop();

    const heard: string[] = [];
    await channels.listen(channel, (text) => heard.push(text));
    await server.kill();
    await assert.rejects(channels.publish(channel, "while down"));
    await server.restart();
    // Reconnection happens in the background; publishing works again once it has.
    for (let i = 0; i < 400 && heard.length === 0; i++) {
      await channels.publish(channel, "after").catch(() => {});
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(heard[0], "after");
    assert.ok(reported.some((error) => /pub\/sub connection/.test(error.message)));
    channels.release();
  });
});
