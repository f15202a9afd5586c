/**
 * Three everything instances (subprocesses, `--redis` to a private redis-server) as one modern
 * server, each request sent to a chosen instance: a listen stream on A hears a tool-list change
 * made on B and a resource update announced on C; a multi round-trip call started on A is
 * finished on B; a task made on A is answered and read on B and C. Then Redis is killed: what
 * needs it fails with a clean error and at once, what does not goes on, and once Redis is back
 * the same instances work together again, none restarted.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type EverythingInstance, startCluster } from "../helpers/everything-instances.js";
import { type PrivateRedis, startPrivateRedis } from "../helpers/redis.js";
import type { Wire } from "../transports/http/http-helpers.js";
import { callTool, listen, ok, pollTask, rpc, WATCHED } from "./modern-rpc.js";

describe("a three-instance modern cluster on Redis", { timeout: 120_000 }, () => {
  let redis: PrivateRedis;
  let instances: EverythingInstance[] = [];
  let a: string;
  let b: string;
  let c: string;

  before(async () => {
    redis = await startPrivateRedis("the modern cluster test");
    instances = await startCluster(3, redis.url, `modern-${randomBytes(4).toString("hex")}:`);
    [a, b, c] = instances.map((instance) => instance.url) as [string, string, string];
  });

  after(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await redis?.stop();
  });

  it("a listen stream on A hears a tool change made on B and a resource update from C", async () => {
    const stream = await listen(a);
    await callTool(b, "test_trigger_tool_change");
    const changed = await stream.next((m) => m.method === "notifications/tools/list_changed");
    assert.ok(changed);
    await callTool(c, "test_update_resource", { uri: WATCHED });
    const updated = await stream.next((m) => m.method === "notifications/resources/updated");
    assert.equal(updated.params.uri, WATCHED);
    stream.close();
  });

  it("a multi round-trip call started on A completes on B", async () => {
    const name = "test_input_required_result_elicitation";
    const round = await callTool(a, name);
    assert.equal(round.resultType, "input_required");
    assert.ok(round.requestState, "the round carries a signed requestState");
    const done = await ok(b, "tools/call", {
      name,
      arguments: {},
      inputResponses: { user_name: { action: "accept", content: { name: "Ada" } } },
      requestState: round.requestState,
    });
    assert.equal(done.resultType, "complete");
    assert.match(done.content[0].text, /Ada/);
  });

  it("a task made on A is answered on B and read as completed on C", async () => {
    const created = await callTool(a, "confirm_delete", { filename: "notes.txt" });
    assert.equal(created.resultType, "task");
    const taskId = created.taskId as string;
    const parked = await pollTask(b, taskId, (task) => task.status === "input_required");
    const [key] = Object.keys(parked.inputRequests);
    await ok(b, "tasks/update", {
      taskId,
      inputResponses: { [key!]: { action: "accept", content: { confirm: true } } },
    });
    const done = await pollTask(c, taskId, (task) => task.status === "completed");
    assert.equal(done.result.content[0].text, "Deleted notes.txt");
  });

  it("with Redis down, shared state fails cleanly and at once; back up, it all works again", async () => {
    const created = await callTool(a, "slow_compute", { seconds: 60 });
    const taskId = created.taskId as string;
    await redis.kill();
    // Task state lives in Redis: a clean JSON-RPC error, not a hang (the request returns).
    const reply = await rpc(b, "tasks/get", { taskId });
    assert.equal(reply.error?.code, -32603, JSON.stringify(reply));
    // What needs no shared state still works, and announcing a change does not fail the call.
    assert.equal(
      (await callTool(c, "test_simple_text")).content[0].text,
      "This is a simple text response for testing.",
    );
    assert.equal((await callTool(b, "test_trigger_tool_change")).isError, undefined);

    await redis.restart();
    // The instances reconnect by themselves; retry until a task can be made again.
    let again: Wire | undefined;
    for (let i = 0; i < 200 && again === undefined; i++) {
      const attempt = await rpc(a, "tools/call", {
        name: "slow_compute",
        arguments: { seconds: 0.01 },
      });
      if (attempt.result) again = attempt.result;
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(again?.resultType, "task", "tasks work again without restarting anything");
    // Each instance reconnects on its own schedule: C may take a moment longer than A.
    let answered: Wire | undefined;
    for (let i = 0; i < 200 && !answered?.result; i++) {
      answered = await rpc(c, "tasks/get", { taskId: again.taskId });
      if (!answered.result) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(answered?.result, JSON.stringify(answered));
    await pollTask(c, again.taskId, (task) => task.status === "completed");
    // And pub/sub is back: a stream on C hears a change made on A.
    const stream = await listen(c);
    let heard: Wire | undefined;
    void stream
      .next((m) => m.method === "notifications/resources/updated")
      .then((message) => {
        heard = message;
      });
    // Published before C's pub/sub connection is back, an update is lost: announce until heard.
    for (let i = 0; i < 200 && heard === undefined; i++) {
      await callTool(a, "test_update_resource", { uri: WATCHED });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(heard?.params.uri, WATCHED);
    stream.close();
    // Each instance said so in its log, once it had reconnected (on its own schedule).
    for (const instance of instances) {
      assert.match(instance.stderr(), /redis: connection lost .*reconnecting/);
      for (let i = 0; i < 200 && !/redis: reconnected/.test(instance.stderr()); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.match(instance.stderr(), /redis: reconnected/);
    }
  });
});
