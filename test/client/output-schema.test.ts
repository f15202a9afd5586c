/**
 * McpClient's `validator`: structuredContent checked against the outputSchema the server listed
 * (both engines), against a scripted server that can break its own schema.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { InvalidResultError } from "../../src/client/results.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { ajvValidator } from "../../src/schema/ajv.js";
import { cfworkerValidator } from "../../src/schema/cfworker.js";
import type { SchemaValidator } from "../../src/schema/validator.js";
import { discoverResult, fakePair } from "./fake-server.js";

const TOOLS = [
  {
    name: "weather",
    inputSchema: { type: "object" },
    outputSchema: {
      type: "object",
      properties: { celsius: { type: "number" } },
      required: ["celsius"],
    },
  },
  { name: "plain", inputSchema: { type: "object" } },
];

/** A client on a server whose weather tool answers `structured` (and plain answers anything). */
async function clientFor(validator: SchemaValidator | undefined, structured: unknown) {
  const { transport, server } = fakePair();
  server.on("server/discover", discoverResult());
  server.on("tools/list", { result: { resultType: "complete", tools: TOOLS } });
  server.on("tools/call", (request) => {
    const content = [{ type: "text", text: "answer" }];
    const result: JsonObject = { resultType: "complete", content };
    if (request.params?.name === "weather" && structured !== undefined) {
      result.structuredContent = structured as JsonObject;
    }
    if (request.params?.name === "plain") result.structuredContent = { anything: true };
    return { result };
  });
  const client = new McpClient({
    clientInfo: { name: "output-test", version: "1.0.0" },
    ...(validator ? { validator } : {}),
  });
  await client.connect(transport);
  return client;
}

for (const [engine, make] of [
  ["ajv", ajvValidator],
  ["@cfworker/json-schema", cfworkerValidator],
] as const) {
  describe(`McpClient validator (${engine})`, () => {
    it("passes a result that matches the listed outputSchema", async () => {
      const client = await clientFor(make(), { celsius: 21 });
      await client.listTools();
      const result = await client.callTool("weather");
      assert.deepEqual(result.structuredContent, { celsius: 21 });
      assert.deepEqual((await client.callTool("plain")).structuredContent, { anything: true });
      await client.close();
    });

    it("refuses structuredContent that breaks it, or is missing", async () => {
      const client = await clientFor(make(), { celsius: "warm" });
      await client.listTools();
      await assert.rejects(
        client.callTool("weather"),
        (error: unknown) =>
          error instanceof InvalidResultError &&
          error.method === "tools/call" &&
          error.message.startsWith(
            "tools/call: tool weather returned structuredContent that does not match its outputSchema: structuredContent/celsius: ",
          ),
      );
      await client.close();
      const silent = await clientFor(make(), undefined);
      await silent.listTools();
      await assert.rejects(silent.callTool("weather"), /declares an outputSchema but returned no/);
      await silent.close();
    });
  });
}

describe("McpClient without a validator", () => {
  it("hands results on unchecked, as before", async () => {
    const client = await clientFor(undefined, { celsius: "warm" });
    await client.listTools();
    assert.deepEqual((await client.callTool("weather")).structuredContent, { celsius: "warm" });
    await client.close();
  });
});
