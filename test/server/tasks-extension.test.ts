/**
 * The tasks extension on the seam (issue 27): McpServer installs it and it offers nothing until a
 * task tool exists (and again nothing once that tool is gone); McpServerBase has no tasks at all,
 * and refuses a tool registered with `task` rather than run it as a plain tool silently.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { McpServer, McpServerBase } from "../../src/server/index.js";
import { TASKS_EXTENSION } from "../../src/server/tasks/wire.js";
import { createMemoryPair } from "../../src/transports/memory.js";

const INFO = { name: "s", version: "1" };

/** What a fresh client of `server` sees in `era`: the capabilities, and tasks/get's error code. */
async function seen(server: McpServerBase, era: "modern" | "legacy") {
  const [serverSide, clientSide] = createMemoryPair();
  server.connect(serverSide);
  const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era });
  await client.connect(clientSide);
  try {
    const capabilities = client.serverCapabilities as JsonObject;
    const code = await client.request("tasks/get", { taskId: "nope" }).then(
      () => undefined,
      (error: unknown) => (error instanceof JsonRpcError ? error.code : undefined),
    );
    return {
      extension: (capabilities.extensions as JsonObject | undefined)?.[TASKS_EXTENSION],
      legacyTasks: capabilities.tasks,
      code,
    };
  } finally {
    await client.close();
  }
}

describe("the tasks extension on the seam", () => {
  for (const era of ["modern", "legacy"] as const) {
    it(`McpServer offers tasks only while a task tool is registered (${era})`, async () => {
      const server = new McpServer({ serverInfo: INFO });
      server.tool({ name: "plain" }, () => "ok");
      const before = await seen(server, era);
      assert.equal(before.extension, undefined);
      assert.equal(before.legacyTasks, undefined);
      assert.equal(before.code, -32601);

      const slow = server.tool({ name: "slow" }, () => "done", { task: { support: "optional" } });
      const offered = await seen(server, era);
      assert.deepEqual(offered.extension, {});
      if (era === "legacy") assert.ok(offered.legacyTasks, "2025-11-25 capabilities.tasks");
      else assert.equal(offered.legacyTasks, undefined);
      assert.equal(offered.code, -32602, "an unknown task id, no longer an unknown method");

      slow.remove();
      const after = await seen(server, era);
      assert.equal(after.extension, undefined);
      assert.equal(after.legacyTasks, undefined);
      assert.equal(after.code, -32601);
      await server.close();
    });
  }

  it("McpServerBase has no tasks: a tool with `task` is refused, naming the option", () => {
    const base = new McpServerBase({ serverInfo: INFO });
    assert.throws(
      () => base.tool({ name: "slow" }, () => "done", { task: { support: "optional" } }),
      /tool slow: option "task" is read by no extension installed on this server/,
    );
    // Options the core reads itself, and an unset extension option, are fine.
    base.tool({ name: "plain" }, () => "ok", { scopes: ["x"], task: undefined });
  });
});
