/**
 * The stdio server gathers the replies of one event-loop turn into one write; a process that
 * exits within that turn still sends them (the server transport flushes on `exit`).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { McpClient } from "../../../src/client/index.js";
import { StdioClientTransport } from "../../../src/transports/stdio/client.js";

const EXITING = fileURLToPath(new URL("../../fixtures/exiting-server.js", import.meta.url));

describe("stdio server replies and process.exit()", () => {
  for (const era of ["modern", "legacy"] as const) {
    it(`a reply sent in the turn the process exits in still arrives (${era})`, async () => {
      const client = new McpClient({ clientInfo: { name: "t", version: "1" }, era });
      const transport = new StdioClientTransport({ command: process.execPath, args: [EXITING] });
      await client.connect(transport);
      try {
        const result = await client.callTool("bye", {});
        assert.deepEqual(result.content, [{ type: "text", text: "bye" }]);
        await client.closed;
      } finally {
        await client.close();
      }
    });
  }
});
