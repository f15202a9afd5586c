import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpServer } from "../../src/server/index.js";
import { modernClient, pollUntil } from "./tasks-helpers.js";

const FORM = (message: string) => ({
  mode: "form",
  message,
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
});

function server() {
  const server = new McpServer({ serverInfo: { name: "tasks", version: "1" }, onError: () => {} });
  server.tool(
    { name: "two_questions" },
    async (_args, context) => {
      const answers = await context.input({
        a: { method: "elicitation/create", params: FORM("first?") },
        b: { method: "elicitation/create", params: FORM("second?") },
      });
      const again = await context.elicit(FORM("third?"));
      return JSON.stringify({ ...answers, again });
    },
    { task: { support: "optional" } },
  );
  return server;
}

describe("tasks: input inside a task", () => {
  it("parks on parallel questions, takes partial answers, mints a fresh key per question", async () => {
    const client = modernClient(server());
    const created = await client.ok("tools/call", { name: "two_questions" });
    assert.equal(created.resultType, "task");
    const taskId = created.taskId as string;
    const parked = await pollUntil(
      client,
      taskId,
      (task) => Object.keys((task.inputRequests as object | undefined) ?? {}).length === 2,
    );
    assert.equal(parked.status, "input_required");
    const [first, second] = Object.keys(parked.inputRequests as object);
    const ack = await client.ok("tasks/update", {
      taskId,
      inputResponses: { [first!]: { action: "accept", content: { ok: true } } },
    });
    assert.deepEqual(
      Object.keys(ack).sort(),
      ["_meta", "resultType"].filter((k) => k in ack),
    );
    const partial = await client.ok("tasks/get", { taskId });
    assert.equal(partial.status, "input_required");
    assert.deepEqual(Object.keys(partial.inputRequests as object), [second]);
    await client.ok("tasks/update", {
      taskId,
      inputResponses: { [second!]: { action: "decline" } },
    });
    const third = await pollUntil(client, taskId, (task) => task.status === "input_required");
    const [thirdKey] = Object.keys(third.inputRequests as object);
    assert.ok(thirdKey !== first && thirdKey !== second, "a key is never reused within a task");
    await client.ok("tasks/update", {
      taskId,
      inputResponses: { [thirdKey!]: { action: "accept", content: { ok: false } } },
    });
    const done = await pollUntil(client, taskId, (task) => task.status === "completed");
    const text = (done.result as { content: { text: string }[] }).content[0]!.text;
    assert.match(text, /"again":\{"action":"accept"/);
    client.close();
  });
});
