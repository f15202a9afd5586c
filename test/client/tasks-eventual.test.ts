/**
 * The client against a task server whose tasks/get lags behind tasks/update (the extension
 * allows it: "the server MAY accept the responses and return the ack before the task's
 * observable status reflects them"): each input request is answered exactly once.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { discoverResult, fakePair } from "./fake-server.js";

const task = (status: string, extra: JsonObject = {}): JsonObject => ({
  resultType: "complete",
  taskId: "t-1",
  status,
  createdAt: "2026-12-01T00:00:00Z",
  lastUpdatedAt: "2026-12-01T00:00:00Z",
  ttlMs: 60_000,
  pollIntervalMs: 10,
  ...extra,
});

describe("McpClient and an eventually consistent task server", () => {
  it("answers a repeated input request key once, and declares the extension by default", async () => {
    const { transport, server } = fakePair();
    const inputRequests = {
      ask: {
        method: "elicitation/create",
        params: { mode: "form", message: "?", requestedSchema: { type: "object", properties: {} } },
      },
    };
    let polls = 0;
    const updates: JsonObject[] = [];
    server
      .on("server/discover", discoverResult())
      .on("tools/call", { result: { ...task("working"), resultType: "task" } })
      .on("tasks/get", () => {
        polls += 1;
        // The answer shows only from the fourth poll on: until then the key is repeated.
        if (polls <= 3) return { result: task("input_required", { inputRequests }) };
        return {
          result: task("completed", { result: { content: [{ type: "text", text: "fine" }] } }),
        };
      })
      .on("tasks/update", (request) => {
        updates.push(request.params as JsonObject);
        return { result: { resultType: "complete" } };
      });
    let asked = 0;
    const client = new McpClient({
      clientInfo: { name: "c", version: "1" },
      handlers: {
        elicitation: async () => {
          asked += 1;
          return { action: "accept", content: {} };
        },
      },
    });
    await client.connect(transport);
    const result = await client.callTool("anything");
    assert.deepEqual(result.content, [{ type: "text", text: "fine" }]);
    assert.equal(asked, 1);
    assert.equal(updates.length, 1);
    assert.deepEqual(Object.keys(updates[0]!.inputResponses as object), ["ask"]);
    const call = server.requests().find((request) => request.method === "tools/call");
    const meta = (call!.params as JsonObject)._meta as JsonObject;
    assert.deepEqual(
      (meta["io.modelcontextprotocol/clientCapabilities"] as JsonObject).extensions,
      { "io.modelcontextprotocol/tasks": {} },
    );
    await client.close();
  });
});
