import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import type { ClientHandlers } from "../../src/client/types.js";
import { MissingRequiredClientCapabilityError } from "../../src/jsonrpc/errors.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { StdioClientTransport } from "../../src/transports/stdio/client.js";
import { inputServer } from "../fixtures/mrtr-features.js";
import { type Connector, memoryConnector, tcpConnector } from "../helpers/connectors.js";

const handlers: Required<Omit<ClientHandlers, "concurrent">> = {
  elicitation: () => ({ action: "accept", content: { name: "Ada" } }),
  sampling: (params) => {
    const messages = params.messages as JsonObject[];
    const text = ((messages[0]!.content as JsonObject).text as string).toUpperCase();
    return { role: "assistant", content: { type: "text", text }, model: "echo" };
  },
  roots: () => [{ uri: "file:///home/ada", name: "home" }],
};

const stdioFixture = new URL("../fixtures/mrtr-stdio-server.js", import.meta.url).pathname;

const transports: Record<string, Connector> = {
  memory: memoryConnector,
  tcp: tcpConnector,
  // The same handlers in a child process (the in-process server goes unused).
  stdio: async () => ({
    transport: new StdioClientTransport({ command: process.execPath, args: [stdioFixture] }),
    cleanup: async () => {},
  }),
};

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

for (const [transportName, connect] of Object.entries(transports)) {
  for (const era of ["modern", "legacy"] as const) {
    describe(`input requests over ${transportName}, era ${era}`, () => {
      it("the same handlers get their answers through McpClient", async () => {
        const server = inputServer();
        const { transport, cleanup } = await connect(server);
        const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era, handlers });
        await client.connect(transport);
        try {
          assert.equal(text(await client.callTool("signup", {})), "Ada on free");
          assert.equal(text(await client.callTool("survey", {})), "Ada|POEM|1");
          assert.equal(text(await client.callTool("steps", {})), "AFTER STEP 1 with 1 root(s)");
          const prompt = await client.getPrompt("letter");
          assert.match(JSON.stringify(prompt.messages), /Dear Ada/);
          const read = await client.readResource("mem://vault");
          assert.equal((read.contents[0] as { text: string }).text, "vault for file:///home/ada");
          // Nothing else asks: plain lists pass untouched.
          assert.equal((await client.listTools()).tools.length, 3);
        } finally {
          await client.close();
          await cleanup();
        }
      });

      it("asks only for what the client declared", async () => {
        const server = inputServer();
        const { transport, cleanup } = await connect(server);
        const client = new McpClient({
          clientInfo: { name: "c", version: "1" },
          era,
          handlers: { sampling: handlers.sampling },
        });
        await client.connect(transport);
        try {
          assert.equal(text(await client.callTool("survey", {})), "undefined|POEM|undefined");
          await assert.rejects(client.callTool("signup", {}), (error: Error) => {
            assert.ok(error instanceof MissingRequiredClientCapabilityError);
            assert.deepEqual(error.requiredCapabilities, { elicitation: {} });
            return true;
          });
        } finally {
          await client.close();
          await cleanup();
        }
      });
    });
  }
}
