/**
 * Shared MRTR keys: instances starting at once agree on one key made in Redis; a key pushed at
 * the head is used for signing while the old one still verifies; and a server that shares
 * state across instances refuses to start with the per-process random key.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  RedisSubscriptionEventSource,
  RedisTaskStore,
  redisRequestStateKeys,
} from "../../src/redis/index.js";
import { McpServer } from "../../src/server/index.js";
import { RequestStateCodec } from "../../src/server/mrtr/request-state.js";
import { type SharedRedis, sharedRedis } from "../helpers/redis.js";

const BINDING = { method: "tools/call", target: "t", principal: undefined, arguments: {} };
const STATE = { round: 1, answers: {}, asked: ["k"] };

describe("MRTR keys shared through Redis", () => {
  let redis: SharedRedis;
  before(async () => {
    redis = await sharedRedis("redisRequestStateKeys");
  });
  after(() => redis?.cleanup());

  it("racing instances end up with the same single key, and rotation keeps old state valid", async () => {
    const options = { prefix: redis.prefix };
    const seen = await Promise.all(
      Array.from({ length: 5 }, () => redisRequestStateKeys(redis.client, options)),
    );
    assert.equal(seen[0]!.length, 1);
    for (const keys of seen) assert.deepEqual(keys, seen[0]);
    const before = new RequestStateCodec({ secret: seen[0]! });
    const token = before.seal(BINDING, STATE);

    await redis.client.lPush(
      `${redis.prefix}request-state-keys`,
      "a rotated key of 32 characters!!",
    );
    const rotated = await redisRequestStateKeys(redis.client, options);
    assert.equal(rotated.length, 2);
    assert.equal(rotated[0], "a rotated key of 32 characters!!");
    const after = new RequestStateCodec({ secret: rotated });
    assert.deepEqual(after.open(token, BINDING), STATE, "state signed before rotation verifies");
    const fresh = after.seal(BINDING, STATE);
    assert.throws(() => before.open(fresh, BINDING), "a non-rotated instance refuses the new key");
  });

  it("a server sharing events or tasks across instances needs a shared mrtr.secret", async () => {
    const events = new RedisSubscriptionEventSource(redis.client, { prefix: redis.prefix });
    const store = new RedisTaskStore(redis.client, { prefix: redis.prefix });
    after(() => events.close());
    const serverInfo = { name: "cluster", version: "1" };
    assert.throws(
      () => new McpServer({ serverInfo, subscriptionEvents: events }),
      /shares subscriptionEvents with other instances but has no mrtr\.secret/,
    );
    assert.throws(
      () => new McpServer({ serverInfo, tasks: { store } }),
      /shares tasks\.store with other instances/,
    );
    const secret = await redisRequestStateKeys(redis.client, { prefix: redis.prefix });
    const server = new McpServer({
      serverInfo,
      subscriptionEvents: events,
      tasks: { store },
      mrtr: { secret },
    });
    await server.close();
  });
});
