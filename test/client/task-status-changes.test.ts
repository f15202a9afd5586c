/**
 * `onTaskStatus` hears each change of a task it waits for, once, to the end (issue 25.D8): not
 * one call per poll, and in both forms the final status too (a 2025-11-25 task's end comes
 * with tasks/result, after which its status is read once). The everything example over stdio:
 * slow_compute polled every 200 ms for 1.5 s, and confirm_delete, which asks a question first.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { StdioClientTransport } from "../../src/transports/stdio/client.js";

const EVERYTHING = new URL("../../examples/everything-server.js", import.meta.url).pathname;

/** The statuses `tool` reports as a task; `confirm_delete`'s question is answered yes. */
async function statusesOf(
  era: "modern" | "legacy",
  tool: "slow_compute" | "confirm_delete",
): Promise<string[]> {
  const client = new McpClient({
    clientInfo: { name: "task-status", version: "1" },
    era,
    handlers: { elicitation: async () => ({ action: "accept", content: { confirm: true } }) },
  });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "--stdio"] }),
  );
  try {
    const seen: string[] = [];
    const record = (task: JsonObject) =>
      seen.push(
        `${task.status}${typeof task.statusMessage === "string" ? ` ${task.statusMessage}` : ""}`,
      );
    const [args, answer] =
      tool === "slow_compute"
        ? [{ seconds: 1.5, label: "sum" }, "Computed sum after 1.5 s"]
        : [{ filename: "notes.txt" }, "Deleted notes.txt"];
    const result = await client.callTool(tool, args, { task: true, onTaskStatus: record });
    assert.deepEqual(result.content, [{ type: "text", text: answer }]);
    return seen;
  } finally {
    await client.close();
  }
}

function assertChangesOnly(seen: string[]): void {
  assert.ok(seen.length >= 2, `at least working and completed: ${JSON.stringify(seen)}`);
  for (let i = 1; i < seen.length; i++) {
    assert.notEqual(seen[i], seen[i - 1], `a repeat, not a change: ${JSON.stringify(seen)}`);
  }
  assert.match(seen[0]!, /^working/);
  assert.match(seen.at(-1)!, /^completed/);
}

describe("onTaskStatus", () => {
  for (const era of ["modern", "legacy"] as const) {
    const form = era === "modern" ? "the tasks extension" : "2025-11-25 tasks";
    it(`${form}: each change once, ending with completed`, async () => {
      assertChangesOnly(await statusesOf(era, "slow_compute"));
    });

    it(`${form}: a question on the way (input_required), then completed`, async () => {
      const seen = await statusesOf(era, "confirm_delete");
      assertChangesOnly(seen);
      assert.ok(
        seen.some((status) => status.startsWith("input_required")),
        JSON.stringify(seen),
      );
    });
  }
});
