import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { McpClient } from "../../src/client/index.js";
import { StdioClientTransport } from "../../src/transports/stdio/client.js";
import { buildServer } from "../fixtures/e2e-features.js";
import {
  type Connector,
  memoryConnector,
  tcpConnector,
  unixConnector,
} from "../helpers/connectors.js";

const scratch = mkdtempSync(join(tmpdir(), "mcpwire-e2e-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const stdioFixture = new URL("../fixtures/e2e-stdio-server.js", import.meta.url).pathname;

const transports: Record<string, Connector> = {
  // The same server definition in a child process (the in-process instance goes unused).
  stdio: async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [stdioFixture],
      stderr: "pipe",
    });
    return { transport, cleanup: async () => {} };
  },
  memory: memoryConnector,
  tcp: tcpConnector,
  unix: unixConnector(scratch),
};

for (const [transportName, connect] of Object.entries(transports)) {
  for (const era of ["modern", "legacy", "auto"] as const) {
    describe(`McpClient ⇄ McpServer over ${transportName}, era ${era}`, () => {
      it("lists, calls, reads, prompts, reports progress and logs, and asks the client", async () => {
        const server = buildServer();
        const { transport, cleanup } = await connect(server);
        const notifications: string[] = [];
        const client = new McpClient({
          clientInfo: { name: "e2e-client", version: "1" },
          era,
          logLevel: "info",
          handlers: { roots: () => [{ uri: "file:///work", name: "work" }] },
          onNotification: (method) => notifications.push(method),
        });
        await client.connect(transport);
        assert.equal(client.era, era === "legacy" ? "legacy" : "modern");
        assert.deepEqual(client.serverInfo, { name: "e2e", version: "1.2.3" });

        const tools = await client.listAllTools();
        assert.deepEqual(
          tools.map((tool) => tool.name),
          ["echo", "count", "ask_roots"],
        );
        const echoed = await client.callTool("echo", { text: "über 😀" });
        assert.deepEqual(echoed.content, [{ type: "text", text: "über 😀" }]);

        const progress: number[] = [];
        const counted = await client.callTool(
          "count",
          {},
          { onProgress: (update) => progress.push(update.progress) },
        );
        assert.deepEqual(counted.content, [{ type: "text", text: `counted by ${client.era}` }]);
        assert.deepEqual(progress, [1, 2, 3]);
        assert.equal(
          notifications.filter((method) => method === "notifications/message").length,
          3,
        );

        const note = await client.readResource("mem://note");
        assert.deepEqual(note.contents, [{ uri: "mem://note", text: "remember" }]);
        const prompt = await client.getPrompt("hello", { who: "Ada" });
        assert.match(JSON.stringify(prompt.messages), /hi Ada/);

        if (client.era === "legacy") {
          const asked = await client.callTool("ask_roots", {});
          assert.deepEqual(JSON.parse((asked.content[0] as { text: string }).text), [
            { uri: "file:///work", name: "work" },
          ]);
        }

        // Many calls in flight at once, answered out of order, each matched to its request.
        const texts = Array.from({ length: 100 }, (_, n) => `message ${n}`);
        const replies = await Promise.all(texts.map((text) => client.callTool("echo", { text })));
        assert.deepEqual(
          replies.map((reply) => (reply.content[0] as { text: string }).text),
          texts,
        );

        await client.close();
        await cleanup();
        await delay(0);
      });
    });
  }
}
