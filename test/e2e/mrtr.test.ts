import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import type { ClientHandlers } from "../../src/client/types.js";
import { MissingRequiredClientCapabilityError } from "../../src/jsonrpc/errors.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { McpServer } from "../../src/server/index.js";
import { type Connector, memoryConnector, tcpConnector } from "../helpers/connectors.js";

/** One server whose handlers ask for input without knowing the era. */
function inputServer(): McpServer {
  const server = new McpServer({ serverInfo: { name: "ask", version: "1" }, onError: () => {} });
  server.tool({ name: "signup" }, async (_args, context) => {
    const answer = await context.elicit({
      mode: "form",
      message: "Sign up",
      requestedSchema: {
        type: "object",
        properties: { name: { type: "string" }, plan: { type: "string", default: "free" } },
      },
    });
    if (answer.action !== "accept") return `not signed up (${answer.action})`;
    const content = answer.content as JsonObject;
    return `${content.name} on ${content.plan}`;
  });
  server.tool({ name: "survey" }, async (_args, context) => {
    const answers = await context.input({
      name: {
        method: "elicitation/create",
        params: { message: "Name?", requestedSchema: { type: "object", properties: {} } },
      },
      poem: {
        method: "sampling/createMessage",
        params: {
          messages: [{ role: "user", content: { type: "text", text: "poem" } }],
          maxTokens: 9,
        },
      },
      roots: { method: "roots/list" },
    });
    const name = (answers.name?.content as JsonObject | undefined)?.name;
    const poem = (answers.poem?.content as JsonObject | undefined)?.text;
    const roots = (answers.roots?.roots as JsonObject[] | undefined)?.length;
    return `${name}|${poem}|${roots}`;
  });
  server.tool({ name: "steps" }, async (_args, context) => {
    const first = await context.sample({
      messages: [{ role: "user", content: { type: "text", text: "step 1" } }],
      maxTokens: 9,
    });
    const second = await context.sample({
      messages: [
        {
          role: "user",
          content: { type: "text", text: `after ${(first.content as JsonObject).text}` },
        },
      ],
      maxTokens: 9,
    });
    const roots = await context.listRoots();
    return `${(second.content as JsonObject).text} with ${(roots.roots as unknown[]).length} root(s)`;
  });
  server.prompt({ name: "letter" }, async (_args, context) => {
    const answer = await context.elicit({
      message: "To?",
      requestedSchema: { type: "object", properties: {} },
    });
    const to = (answer.content as JsonObject).name;
    return { messages: [{ role: "user", content: { type: "text", text: `Dear ${to}` } }] };
  });
  server.resource({ uri: "mem://vault", name: "vault" }, async (uri, context) => {
    const roots = await context.listRoots();
    return [{ uri, text: `vault for ${(roots.roots as JsonObject[])[0]!.uri}` }];
  });
  return server;
}

const handlers: Required<ClientHandlers> = {
  elicitation: () => ({ action: "accept", content: { name: "Ada" } }),
  sampling: (params) => {
    const messages = params.messages as JsonObject[];
    const text = ((messages[0]!.content as JsonObject).text as string).toUpperCase();
    return { role: "assistant", content: { type: "text", text }, model: "echo" };
  },
  roots: () => [{ uri: "file:///home/ada", name: "home" }],
};

const transports: Record<string, Connector> = { memory: memoryConnector, tcp: tcpConnector };

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
