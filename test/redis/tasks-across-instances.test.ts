/**
 * Two servers in one process stand for two instances: they share a RedisTaskStore and a
 * RedisTaskRelay and RedisTaskRunners (each its own, as separate processes would have). A task
 * made on A is read on B; tasks/update on B reaches the handler parked on A; tasks/cancel on B
 * stops A's handler; once A's lease is gone, B marks A's unfinished task failed (while A lives,
 * its tasks stay as they are).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { RedisTaskRelay, RedisTaskRunners, RedisTaskStore } from "../../src/redis/index.js";
import { McpServer } from "../../src/server/index.js";
import { type SharedRedis, sharedRedis } from "../helpers/redis.js";
import { addGoAheadTool, askedOnAnsweredElsewhere, modernClient } from "../server/tasks-helpers.js";

describe("tasks across two instances on Redis", () => {
  let redis: SharedRedis;
  const relays: RedisTaskRelay[] = [];
  const leases: RedisTaskRunners[] = [];
  const servers: McpServer[] = [];
  /** Labels of the "wait" handlers stopped so far, in order. */
  const stopped: string[] = [];

  function instance(): McpServer {
    const relay = new RedisTaskRelay(redis.client, { prefix: redis.prefix });
    relays.push(relay);
    const runners = new RedisTaskRunners(redis.client, { prefix: redis.prefix });
    leases.push(runners);
    const server = new McpServer({
      serverInfo: { name: "tasks-cluster", version: "1" },
      onError: () => {},
      mrtr: { secret: "a shared secret of enough bytes" },
      tasks: { store: new RedisTaskStore(redis.client, { prefix: redis.prefix }), relay, runners },
    });
    addGoAheadTool(server);
    server.tool(
      { name: "wait" },
      (args, context) =>
        new Promise((_, reject) =>
          context.signal.addEventListener("abort", () => {
            stopped.push(String(args.label));
            reject(context.signal.reason);
          }),
        ),
      { task: { support: "required" } },
    );
    servers.push(server);
    return server;
  }

  before(async () => {
    redis = await sharedRedis("tasks across instances");
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await Promise.all(relays.map((relay) => relay.close()));
    await Promise.all(leases.map((lease) => lease.close()));
    await redis?.cleanup();
  });

  it("an answer given on B reaches the handler parked on A", async () => {
    const [a, b] = [instance(), instance()];
    await Promise.all([...relays, ...leases].map((piece) => piece.ready));
    const task = await askedOnAnsweredElsewhere(a, b);
    await task.update();
    await task.finished();
  });

  it("a cancel on B stops the handler running on A", async () => {
    const [a, b] = [instance(), instance()];
    await Promise.all(relays.map((relay) => relay.ready));
    const onA = modernClient(a);
    const onB = modernClient(b);
    const created = await onA.ok("tools/call", { name: "wait" });
    const taskId = created.taskId as string;
    assert.equal(a.tasks?.running, 1);
    await onB.ok("tasks/cancel", { taskId });
    assert.equal((await onA.ok("tasks/get", { taskId })).status, "cancelled");
    const running = () => a.tasks?.running;
    for (let i = 0; i < 500 && running() !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(running(), 0, "A's handler was stopped");
    onA.close();
    onB.close();
  });

  it("a cancel on the channel for a task the store does not show cancelled stops nothing", async () => {
    const [a] = [instance()];
    await Promise.all([...relays, ...leases].map((piece) => piece.ready));
    const onA = modernClient(a);
    const created = await onA.ok("tools/call", { name: "wait", arguments: { label: "first" } });
    const taskId = created.taskId as string;
    const channel = `${redis.prefix}tasks`;
    const forged = { from: "x", message: { taskId, cancel: true } };
    await redis.client.publish(channel, JSON.stringify(forged));
    // A real cancel of another task, sent after the forged one and handled in the same order:
    // once its handler has stopped, the forged cancel has been judged too.
    const other = await onA.ok("tools/call", { name: "wait", arguments: { label: "other" } });
    const record = (await a.tasks!.store.get(other.taskId as string))!;
    await a.tasks!.store.compareAndSet({ ...record, status: "cancelled", version: 2 }, 1);
    const real = { from: "x", message: { taskId: other.taskId, cancel: true } };
    await redis.client.publish(channel, JSON.stringify(real));
    for (let i = 0; i < 500 && !stopped.includes("other"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.ok(stopped.includes("other"), "the real cancel stopped its task");
    assert.ok(!stopped.includes("first"), "the forged cancel stopped nothing");
    assert.equal((await onA.ok("tasks/get", { taskId })).status, "working");
    onA.close();
  });

  it("a task whose instance died is marked failed by the next tasks/get elsewhere", async () => {
    const [a, b] = [instance(), instance()];
    await Promise.all([...relays, ...leases].map((piece) => piece.ready));
    const onA = modernClient(a);
    const onB = modernClient(b);
    const created = await onA.ok("tools/call", { name: "wait" });
    const taskId = created.taskId as string;
    assert.equal((await onB.ok("tasks/get", { taskId })).status, "working", "A is alive");
    // A dies: its lease is gone (deleted here, as it would expire).
    const leaseOfA = leases[leases.length - 2]!;
    await leaseOfA.close();
    const seen = await onB.ok("tasks/get", { taskId });
    assert.equal(seen.status, "failed");
    assert.deepEqual(seen.error, {
      code: -32603,
      message: "The server instance running this task stopped before it finished",
    });
    onA.close();
    onB.close();
  });
});
