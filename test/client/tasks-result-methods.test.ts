/**
 * A task is what a `tools/call` may become, nothing else (extensions/tasks/tasks.md: "MUST NOT
 * return a CreateTaskResult for any other method"): a client that gets `resultType: "task"`
 * for another method refuses it as an invalid result and never polls tasks/get for it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { InvalidResultError } from "../../src/client/results.js";
import { discoverResult, fakePair } from "./fake-server.js";

const CREATED = {
  resultType: "task",
  taskId: "t-1",
  status: "working",
  createdAt: "2026-12-01T00:00:00Z",
  lastUpdatedAt: "2026-12-01T00:00:00Z",
  ttlMs: 60_000,
  pollIntervalMs: 10,
};

describe("a task result on a method other than tools/call", () => {
  it("is refused for prompts/get, resources/read and tools/list; tasks/get is never sent", async () => {
    const { transport, server } = fakePair();
    server
      .on("server/discover", discoverResult())
      .on("prompts/get", { result: CREATED })
      .on("resources/read", { result: CREATED })
      .on("tools/list", { result: CREATED })
      .on("tasks/get", { result: { ...CREATED, resultType: "complete", status: "completed" } });
    const client = new McpClient({ clientInfo: { name: "c", version: "1" } });
    await client.connect(transport);
    const refused = async (method: string, call: Promise<unknown>) => {
      const error = await call.then(
        () => assert.fail(`${method}: a task result was accepted`),
        (failure: unknown) => failure,
      );
      assert.ok(error instanceof InvalidResultError, `${method}: ${String(error)}`);
      assert.equal(error.method, method);
      assert.match(error.message, /resultType "task"/);
    };
    await refused("prompts/get", client.getPrompt("p"));
    await refused("resources/read", client.readResource("mem://x"));
    await refused("tools/list", client.listTools());
    assert.equal(server.requests("tasks/get").length, 0);
    await client.close();
  });
});
