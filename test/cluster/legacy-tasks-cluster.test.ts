/**
 * 2025-11-25 tasks on two everything instances sharing one Redis (task store, relay, runners,
 * legacy session records and events): one anonymous legacy session, its requests sent to
 * either instance by hand, as a balancer without affinity would. A task made on A is found,
 * listed, awaited (tasks/result, with its elicitation asked and answered there) and cancelled
 * on B; the session's GET stream hears each notifications/tasks/status exactly once, however
 * many instances hold a copy of the session.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type EverythingInstance, startCluster } from "../helpers/everything-instances.js";
import { type SharedRedis, sharedRedis } from "../helpers/redis.js";
import { RawSession, type SseEvent, SseEvents } from "../transports/http/legacy-helpers.js";

type Message = {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

let nextId = 0;

/** One request on `session`: the reply, and whatever the server sent before it on its stream. */
async function rpc(
  session: RawSession,
  method: string,
  params: Record<string, unknown>,
): Promise<{ reply: Message; before: Message[] }> {
  const id = ++nextId;
  const response = await session.post({ jsonrpc: "2.0", id, method, params });
  assert.equal(response.status, 200, `${method}: HTTP ${response.status}`);
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    return { reply: (await response.json()) as Message, before: [] };
  }
  const before: Message[] = [];
  for (const event of await new SseEvents(response).rest()) {
    const message = event.message as Message | undefined;
    if (!message) continue;
    if (message.id === id && message.method === undefined) return { reply: message, before };
    before.push(message);
  }
  assert.fail(`${method}: the stream ended without a reply`);
}

async function ok(session: RawSession, method: string, params: Record<string, unknown>) {
  const { reply } = await rpc(session, method, params);
  if (reply.error) assert.fail(`${method}: ${reply.error.code} ${reply.error.message}`);
  return reply.result!;
}

async function createTask(session: RawSession, name: string, args: Record<string, unknown>) {
  const result = await ok(session, "tools/call", { name, arguments: args, task: { ttl: 60_000 } });
  return (result.task as { taskId: string }).taskId;
}

/** The next message on `events` that `wanted` picks (undefined once the stream ends). */
async function nextMessage(
  events: SseEvents,
  wanted: (message: Message) => boolean,
): Promise<Message | undefined> {
  for (;;) {
    const event = await events.next();
    if (!event) return undefined;
    const message = event.message as Message | undefined;
    if (message && wanted(message)) return message;
  }
}

/** The same legacy session, as seen through `instance` (the session id is all it takes). */
function through(session: RawSession, instance: EverythingInstance): RawSession {
  const other = new RawSession(instance.url);
  other.sessionId = session.sessionId;
  return other;
}

describe("legacy tasks across two instances on Redis", { timeout: 120_000 }, () => {
  let redis: SharedRedis;
  let a: EverythingInstance;
  let b: EverythingInstance;
  let onA: RawSession;
  let onB: RawSession;

  before(async () => {
    redis = await sharedRedis("the legacy tasks cluster test");
    [a, b] = (await startCluster(2, redis.url, redis.prefix)) as [
      EverythingInstance,
      EverythingInstance,
    ];
    onA = new RawSession(a.url);
    await onA.open();
    onB = through(onA, b);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.cleanup();
  });

  it("a task made on A is got, listed and awaited on B", async () => {
    const taskId = await createTask(onA, "slow_compute", { seconds: 0.5, label: "sum" });
    const got = await ok(onB, "tasks/get", { taskId });
    assert.equal(got.taskId, taskId);
    assert.ok(got.status === "working" || got.status === "completed", String(got.status));
    const listed = await ok(onB, "tasks/list", {});
    assert.ok((listed.tasks as { taskId: string }[]).some((task) => task.taskId === taskId));
    const result = await ok(onB, "tasks/result", { taskId });
    assert.deepEqual(result.content, [{ type: "text", text: "Computed sum after 0.5 s" }]);
    assert.equal((await ok(onA, "tasks/get", { taskId })).status, "completed");
  });

  it("another session cannot see the task on either instance", async () => {
    const taskId = await createTask(onA, "slow_compute", { seconds: 0.1 });
    const stranger = new RawSession(b.url);
    await stranger.open();
    const { reply } = await rpc(stranger, "tasks/get", { taskId });
    assert.equal(reply.error?.code, -32602);
    const listed = await ok(stranger, "tasks/list", {});
    assert.deepEqual(listed.tasks, []);
    await stranger.delete();
  });

  it("tasks/result on B asks the elicitation of the handler running on A, and B's answer reaches it", async () => {
    const taskId = await createTask(onA, "confirm_delete", { filename: "notes.txt" });
    const id = ++nextId;
    const response = await onB.post({
      jsonrpc: "2.0",
      id,
      method: "tasks/result",
      params: { taskId },
    });
    assert.equal(response.headers.get("content-type")?.split(";")[0], "text/event-stream");
    const events = new SseEvents(response);
    const asked = await nextMessage(events, (message) => message.method === "elicitation/create");
    assert.ok(asked, "the elicitation came on tasks/result's stream");
    assert.equal(asked.params?.message, "Delete notes.txt?");
    assert.deepEqual(
      (asked.params?._meta as Record<string, unknown> | undefined)?.[
        "io.modelcontextprotocol/related-task"
      ],
      { taskId },
    );
    const answered = await onB.post({
      jsonrpc: "2.0",
      id: asked.id,
      result: { action: "accept", content: { confirm: true } },
    });
    assert.equal(answered.status, 202);
    const reply = await nextMessage(events, (message) => message.id === id);
    assert.deepEqual(reply?.result?.content, [{ type: "text", text: "Deleted notes.txt" }]);
  });

  it("tasks/cancel on B stops the task running on A; a second cancel is -32602", async () => {
    const taskId = await createTask(onA, "slow_compute", { seconds: 60 });
    const cancelled = await ok(onB, "tasks/cancel", { taskId });
    assert.equal(cancelled.status, "cancelled");
    assert.equal((await ok(onA, "tasks/get", { taskId })).status, "cancelled");
    const { reply } = await rpc(onA, "tasks/cancel", { taskId });
    assert.equal(reply.error?.code, -32602);
    const { reply: result } = await rpc(onB, "tasks/result", { taskId });
    assert.equal(result.error?.code, -32603);
  });

  it("the GET stream hears each task status once, though both instances hold a copy that made tasks", async () => {
    const stream = await onB.get();
    assert.equal(stream.status, 200);
    const events = new SseEvents(stream);
    const heard: Message[] = [];
    const hear = async (done: () => boolean) => {
      while (!done()) {
        const event: SseEvent | undefined = await events.next();
        assert.ok(event, "the GET stream ended");
        if ((event.message as Message | undefined)?.method === "notifications/tasks/status") {
          heard.push(event.message as Message);
        }
      }
    };
    const completed = (taskId: string) =>
      heard.filter((m) => m.params?.taskId === taskId && m.params?.status === "completed").length;
    const onAFirst = await createTask(onA, "slow_compute", { seconds: 0.2 });
    const onBFirst = await createTask(onB, "slow_compute", { seconds: 0.2 });
    await hear(() => completed(onAFirst) > 0 && completed(onBFirst) > 0);
    // A later task's completion, announced after the others: any second copy of theirs
    // (written here at once, or sent over the bus before it) comes before it.
    const last = await createTask(onA, "slow_compute", { seconds: 0.2 });
    await hear(() => completed(last) > 0);
    const statuses = heard.map((m) => `${m.params?.taskId}:${m.params?.status}`);
    assert.equal(new Set(statuses).size, statuses.length, `heard twice: ${statuses.join(", ")}`);
    assert.deepEqual([completed(onAFirst), completed(onBFirst), completed(last)], [1, 1, 1]);
    await events.cancel();
  });
});
