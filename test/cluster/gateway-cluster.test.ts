/**
 * Two `mcpwire gateway --config` instances sharing one Redis (`--redis`), each request sent to
 * a chosen instance as a balancer without affinity would: what one instance holds for a client
 * (a call parked between input rounds, a relayed task, a legacy session) is found through the
 * other, on a server's own endpoint and on the aggregated /mcp alike.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import {
  configDir,
  fixture,
  OUR_EVERYTHING,
  SERVER_EVERYTHING,
  startConfigGateway,
  startGateway,
} from "../cli/gateway-run.js";
import { type Running, stop } from "../cli/run-cli.js";
import { type SharedRedis, sharedRedis } from "../helpers/redis.js";
import { RawSession } from "../transports/http/legacy-helpers.js";
import { callTool, listen, ok, pollTask, rpc } from "./modern-rpc.js";

const ELICITING = "test_input_required_result_elicitation";

/** Starts the elicitation on `first`, answers it on `second`: the greeting names Ada. */
async function roundsAcross(first: string, second: string, name: string) {
  const round = await callTool(first, name);
  assert.equal(round.resultType, "input_required", JSON.stringify(round));
  const done = await ok(second, "tools/call", {
    name,
    arguments: {},
    inputResponses: { user_name: { action: "accept", content: { name: "Ada" } } },
    requestState: round.requestState,
  });
  assert.equal(done.resultType, "complete", JSON.stringify(done));
  assert.match(done.content[0].text, /Ada/);
}

/**
 * The official everything server speaks 2025-11-25 over stdio: its elicitation is a real request
 * the gateway keeps pending on the first instance, under a key of that instance's own; only it
 * can take the answer, which the client sends to the second.
 */
async function questionAcross(first: string, second: string) {
  const name = "trigger-elicitation-request";
  const round = await callTool(first, name);
  assert.equal(round.resultType, "input_required", JSON.stringify(round));
  const [key] = Object.keys(round.inputRequests);
  const done = await ok(second, "tools/call", {
    name,
    arguments: {},
    inputResponses: {
      [key!]: {
        action: "accept",
        content: { name: "Ada", color: "blue", untilDate: "2030-01-01" },
      },
    },
    requestState: round.requestState,
  });
  assert.equal(done.resultType, "complete", JSON.stringify(done));
  assert.match(JSON.stringify(done.content), /Name: Ada/);
}

/** The same legacy session, through another instance (the session id is all it takes). */
function through(session: RawSession, url: string): RawSession {
  const other = new RawSession(url);
  other.sessionId = session.sessionId;
  return other;
}

async function legacyOk(session: RawSession, method: string, params: Record<string, unknown>) {
  const response = await session.post({ jsonrpc: "2.0", id: 1, method, params });
  assert.equal(response.status, 200, `${method}: HTTP ${response.status}`);
  const text = await response.text();
  const reply = text.startsWith("{")
    ? JSON.parse(text)
    : JSON.parse(
        /^data: (.*)$/m.exec(
          text
            .split("\n\n")
            .filter((e) => /"id":1\b/.test(e))
            .at(-1)!,
        )![1]!,
      );
  if (reply.error) assert.fail(`${method}: ${reply.error.code} ${reply.error.message}`);
  return reply.result;
}

describe("gateway --redis: two instances as one", { timeout: 120_000 }, () => {
  let dir: string;
  let redis: SharedRedis;
  let gateways: Running[] = [];
  let a: string;
  let b: string;

  before(async () => {
    let config: string;
    ({ dir, config } = configDir("gw-cluster", {
      ours: OUR_EVERYTHING,
      plain: [fixture("gateway-plain-server")],
      theirs: SERVER_EVERYTHING,
    }));
    redis = await sharedRedis("the gateway cluster test");
    const flags = ["--redis", redis.url, "--redis-prefix", redis.prefix];
    const started = await Promise.all([
      startConfigGateway(config, flags),
      startConfigGateway(config, flags),
    ]);
    gateways = started.map((one) => one.gateway);
    [a, b] = started.map((one) => one.origin) as [string, string];
  });
  after(async () => {
    await Promise.all(gateways.map((gateway) => stop(gateway)));
    await redis?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a multi round-trip call parked on A is finished through B, at a server's endpoint", async () => {
    await roundsAcross(`${a}/servers/ours/mcp`, `${b}/servers/ours/mcp`, ELICITING);
    // And back: B's parked call finished through A.
    await roundsAcross(`${b}/servers/ours/mcp`, `${a}/servers/ours/mcp`, ELICITING);
  });

  it("a legacy upstream's question, its call held open on A, is answered through B", async () => {
    await questionAcross(`${a}/servers/theirs/mcp`, `${b}/servers/theirs/mcp`);
  });

  it("and at the aggregated /mcp", async () => {
    await roundsAcross(`${a}/mcp`, `${b}/mcp`, `ours_${ELICITING}`);
  });

  it("a task relayed by A is answered through B and read as completed through A", async () => {
    const [onA, onB] = [`${a}/servers/ours/mcp`, `${b}/servers/ours/mcp`];
    const created = await callTool(onA, "confirm_delete", { filename: "notes.txt" });
    assert.equal(created.resultType, "task", JSON.stringify(created));
    const taskId = created.taskId as string;
    const parked = await pollTask(onB, taskId, (task) => task.status === "input_required");
    const [key] = Object.keys(parked.inputRequests);
    await ok(onB, "tasks/update", {
      taskId,
      inputResponses: { [key!]: { action: "accept", content: { confirm: true } } },
    });
    const done = await pollTask(onA, taskId, (task) => task.status === "completed");
    assert.equal(done.result.content[0].text, "Deleted notes.txt");
  });

  it("a listen stream on A hears a tool list change made through B, on both endpoints", async () => {
    const own = await listen(`${a}/servers/ours/mcp`);
    const all = await listen(`${a}/mcp`);
    await callTool(`${b}/servers/ours/mcp`, "test_trigger_tool_change");
    const changed = (m: { method?: string }) => m.method === "notifications/tools/list_changed";
    assert.ok(await own.next(changed));
    assert.ok(await all.next(changed));
    own.close();
    all.close();
  });

  it("a legacy session opened on A is served by B, its task made on A awaited on B", async () => {
    const onA = new RawSession(`${a}/servers/ours/mcp`);
    await onA.open();
    const onB = through(onA, `${b}/servers/ours/mcp`);
    const simple = await legacyOk(onB, "tools/call", { name: "test_simple_text", arguments: {} });
    assert.equal(simple.content[0].text, "This is a simple text response for testing.");
    const created = await legacyOk(onA, "tools/call", {
      name: "slow_compute",
      arguments: { seconds: 0.2, label: "sum" },
      task: { ttl: 60_000 },
    });
    const taskId = created.task.taskId as string;
    assert.equal((await legacyOk(onB, "tasks/get", { taskId })).taskId, taskId);
    const result = await legacyOk(onB, "tasks/result", { taskId });
    assert.deepEqual(result.content, [{ type: "text", text: "Computed sum after 0.2 s" }]);
    await onA.delete();
  });

  // Last: it stops A.
  it("a call parked on an instance that stopped: its retry elsewhere fails at once, -32603", async () => {
    const name = "trigger-elicitation-request";
    const round = await callTool(`${a}/servers/theirs/mcp`, name);
    const [key] = Object.keys(round.inputRequests);
    await stop(gateways[0]!);
    const reply = await rpc(`${b}/servers/theirs/mcp`, "tools/call", {
      name,
      arguments: {},
      inputResponses: { [key!]: { action: "decline" } },
      requestState: round.requestState,
    });
    assert.equal(reply.error?.code, -32603, JSON.stringify(reply));
    assert.match(reply.error.message, /instance holding this call or task cannot be reached/);
    // The address is the operator's to read, not the client's.
    assert.doesNotMatch(reply.error.message, /127\.0\.0\.1/);
    assert.match(
      gateways[1]!.stderr(),
      /cannot forward tools\/call to http:\/\/127\.0\.0\.1:\d+: /,
    );
  });
});

describe("gateway --redis in front of one server", { timeout: 60_000 }, () => {
  let redis: SharedRedis;
  let gateways: Running[] = [];

  after(async () => {
    await Promise.all(gateways.map((gateway) => stop(gateway)));
    await redis?.cleanup();
  });

  it("two instances: a question held open on one is answered through the other", async () => {
    redis = await sharedRedis("the one-server gateway cluster test");
    const flags = ["--redis", redis.url, "--redis-prefix", redis.prefix];
    const started = await Promise.all([
      startGateway(SERVER_EVERYTHING, flags),
      startGateway(SERVER_EVERYTHING, flags),
    ]);
    gateways = started.map((one) => one.gateway);
    const [first, second] = started.map((one) => one.url) as [string, string];
    await questionAcross(first, second);
    await questionAcross(second, first);
  });
});
