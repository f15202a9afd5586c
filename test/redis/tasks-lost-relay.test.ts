/**
 * tasks/update across instances when the relay loses its message (pub/sub delivers at most
 * once): two servers in one process stand for two instances sharing a RedisTaskStore; B's relay
 * drops the answers it should carry to A. The answer is kept in the task's record, so A's
 * handler still gets it (read while it waits), and a retried tasks/update sends it again.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { RedisTaskRelay, RedisTaskStore } from "../../src/redis/index.js";
import { McpServer } from "../../src/server/index.js";
import type { TaskRelay } from "../../src/server/tasks/store.js";
import { type SharedRedis, sharedRedis } from "../helpers/redis.js";
import { addGoAheadTool, askedOnAnsweredElsewhere } from "../server/tasks-helpers.js";

describe("tasks/update across instances with a lossy relay (Redis)", () => {
  let redis: SharedRedis;
  const relays: RedisTaskRelay[] = [];
  const servers: McpServer[] = [];

  /** `lose(n)`: whether the n-th answers message this instance sends is lost (n from 1). */
  function instance(answerCheckMs: number, lose: (n: number) => boolean = () => false) {
    const relay = new RedisTaskRelay(redis.client, { prefix: redis.prefix });
    relays.push(relay);
    let sent = 0;
    const lossy: TaskRelay = {
      send: async (message) => {
        if ("answers" in message && lose(++sent)) return;
        await relay.send(message);
      },
      receive: (handler) => relay.receive(handler),
    };
    const server = new McpServer({
      serverInfo: { name: "tasks-lossy", version: "1" },
      onError: () => {},
      mrtr: { secret: "a shared secret of enough bytes" },
      tasks: {
        store: new RedisTaskStore(redis.client, { prefix: redis.prefix }),
        relay: lossy,
        answerCheckMs,
      },
    });
    addGoAheadTool(server);
    servers.push(server);
    return server;
  }

  before(async () => {
    redis = await sharedRedis("tasks lost relay");
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await Promise.all(relays.map((relay) => relay.close()));
    await redis?.cleanup();
  });

  it("the relay message is lost: A's waiting handler reads the answer from the record", async () => {
    const a = instance(50);
    const b = instance(50, () => true);
    await Promise.all(relays.map((relay) => relay.ready));
    const task = await askedOnAnsweredElsewhere(a, b);
    await task.update();
    await task.finished();
  });

  it("a retried tasks/update after a lost one reaches the handler", async () => {
    // A reads records too rarely to matter here: only the retry can bring the answer.
    const a = instance(600_000);
    const b = instance(600_000, (n) => n === 1);
    await Promise.all(relays.map((relay) => relay.ready));
    const task = await askedOnAnsweredElsewhere(a, b);
    await task.update();
    assert.equal(a.tasks?.running, 1, "the first answer was lost");
    await task.update();
    await task.finished();
  });
});
