import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { z } from "zod";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { Session } from "../../src/protocol/session.js";
import { McpServer } from "../../src/server/index.js";
import { tcpConnector } from "../helpers/connectors.js";

const MODERN_META: JsonObject = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
};

/** Every value the handlers saw, to prove what the schema library handed them. */
const seen: unknown[] = [];

function typedServer(): McpServer {
  const server = new McpServer({ serverInfo: { name: "typed", version: "1" }, onError: () => {} });
  server.tool(
    {
      name: "forecast",
      inputSchema: z.object({
        city: z.string().min(1),
        days: z.number().int().max(7).default(3),
        units: z.string().transform((text) => text.toUpperCase()),
      }),
      outputSchema: z.object({
        summary: z.string(),
        at: z.string().transform((text) => `${text}Z`),
      }),
    },
    (args) => {
      seen.push(args);
      return {
        content: [{ type: "text", text: "sunny" }],
        structuredContent: { summary: `${args.days} days in ${args.city}`, at: "12:00" },
      };
    },
  );
  server.tool(
    { name: "broken_output", outputSchema: z.object({ count: z.number() }) },
    // Deliberately wrong at run time: a handler typed loosely elsewhere can still send this.
    () => ({ content: [], structuredContent: { count: "many" as unknown as number } }),
  );
  server.tool(
    {
      name: "plain",
      inputSchema: { type: "object", properties: { n: { type: "integer", default: 1 } } },
    },
    (args) => {
      seen.push(args);
      return "ok";
    },
  );
  return server;
}

describe("tools with zod (Standard Schema) schemas, over a TCP socket", () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  async function connect(): Promise<Session> {
    const { transport, cleanup } = await tcpConnector(typedServer());
    const client = new Session(transport);
    client.start();
    cleanups.push(async () => {
      await client.close();
      await cleanup();
    });
    return client;
  }

  function call(client: Session, name: string, args: unknown): Promise<JsonObject> {
    return client.request("tools/call", { name, arguments: args, _meta: MODERN_META });
  }

  it("publishes the zod schemas as JSON Schema objects (input side in, output side out)", async () => {
    const client = await connect();
    const listed = await client.request("tools/list", { _meta: MODERN_META });
    const tool = (listed.tools as JsonObject[]).find((entry) => entry.name === "forecast")!;
    const input = tool.inputSchema as JsonObject;
    assert.equal(input.type, "object");
    assert.deepEqual(Object.keys(input.properties as JsonObject), ["city", "days", "units"]);
    // `days` has a default, so a caller may leave it out.
    assert.deepEqual(input.required, ["city", "units"]);
    assert.deepEqual((input.properties as JsonObject).days, {
      default: 3,
      type: "integer",
      minimum: -9007199254740991,
      maximum: 7,
    });
    // The output side: `at` is a transform's result, which JSON Schema cannot describe.
    assert.deepEqual(tool.outputSchema, {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { summary: { type: "string" }, at: {} },
      required: ["summary", "at"],
      additionalProperties: false,
    });
  });

  it("hands the handler the schema's output: defaults filled in, transforms applied", async () => {
    const client = await connect();
    seen.length = 0;
    const result = await call(client, "forecast", { city: "Oslo", units: "metric" });
    assert.equal(result.isError, undefined);
    assert.deepEqual(seen, [{ city: "Oslo", days: 3, units: "METRIC" }]);
    assert.deepEqual(result.structuredContent, { summary: "3 days in Oslo", at: "12:00Z" });
  });

  it("answers invalid arguments with a tool error the model can read, naming the field", async () => {
    const client = await connect();
    seen.length = 0;
    const result = await call(client, "forecast", { city: "Oslo", days: 9, units: "metric" });
    assert.equal(result.isError, true);
    const text = (result.content as { text: string }[])[0]!.text;
    assert.match(text, /^Invalid arguments for tool forecast: arguments\/days: /);
    assert.match(text, /7/);
    assert.deepEqual(seen, [], "the handler never ran");
    const missing = await call(client, "forecast", {});
    assert.equal(missing.isError, true);
    assert.match(
      (missing.content as { text: string }[])[0]!.text,
      /arguments\/city: .*; arguments\/units: /,
    );
  });

  it("treats structuredContent that fails the outputSchema as the server's error", async () => {
    const client = await connect();
    await assert.rejects(call(client, "broken_output", {}), (error: Error & { code?: number }) => {
      assert.equal(error.code, -32603);
      assert.match(error.message, /structuredContent\/count: /);
      return true;
    });
  });

  it("keeps plain JSON Schema tools on the ajv path: no defaults injected, errors as before", async () => {
    const client = await connect();
    seen.length = 0;
    assert.equal((await call(client, "plain", {})).isError, undefined);
    assert.deepEqual(seen, [{}]);
    const bad = await call(client, "plain", { n: "x" });
    assert.equal(
      (bad.content as { text: string }[])[0]!.text,
      "Invalid arguments for tool plain: arguments/n: must be integer",
    );
  });

  it("works with any Standard Schema library, not only zod (async validation included)", async () => {
    const server = new McpServer({ serverInfo: { name: "hand", version: "1" } });
    // A hand-written schema: the Standard Schema and Standard JSON Schema surface, nothing else.
    const upperName = {
      "~standard": {
        version: 1 as const,
        vendor: "hand-written",
        types: undefined as unknown as { input: { name: string }; output: { name: string } },
        validate: async (value: unknown) => {
          const name = (value as { name?: unknown } | null)?.name;
          if (typeof name !== "string") {
            return { issues: [{ message: "expected a string", path: [{ key: "name" }] }] };
          }
          return { value: { name: name.toUpperCase() } };
        },
        jsonSchema: {
          input: () => ({ type: "object", properties: { name: { type: "string" } } }),
          output: () => ({ type: "object" }),
        },
      },
    };
    server.tool({ name: "shout", inputSchema: upperName }, (args) => `hello ${args.name}`);
    const { transport, cleanup } = await tcpConnector(server);
    const client = new Session(transport);
    client.start();
    cleanups.push(async () => {
      await client.close();
      await cleanup();
    });
    const ok = await call(client, "shout", { name: "ada" });
    assert.deepEqual(ok.content, [{ type: "text", text: "hello ADA" }]);
    const bad = await call(client, "shout", { name: 1 });
    assert.deepEqual(bad.content, [
      { type: "text", text: "Invalid arguments for tool shout: arguments/name: expected a string" },
    ]);
  });

  it("keeps the tool error short when the caller's keys are huge", async () => {
    const server = new McpServer({ serverInfo: { name: "strict", version: "1" } });
    server.tool({ name: "strict", inputSchema: z.strictObject({ a: z.string() }) }, () => "ok");
    const { transport, cleanup } = await tcpConnector(server);
    const client = new Session(transport);
    client.start();
    cleanups.push(async () => {
      await client.close();
      await cleanup();
    });
    const hugeKeys = Object.fromEntries(
      Array.from({ length: 5 }, (_, i) => [`${i}${"k".repeat(100_000)}`, 1]),
    );
    const result = await call(client, "strict", hugeKeys);
    assert.equal(result.isError, true);
    const text = (result.content as { text: string }[])[0]!.text;
    assert.match(text, /^Invalid arguments for tool strict: arguments/);
    assert.ok(text.length <= 1100, `${text.length} characters`);
  });

  it("refuses at registration a Standard Schema that cannot describe itself as JSON Schema", () => {
    const server = new McpServer({ serverInfo: { name: "x", version: "1" } });
    const validateOnly = {
      "~standard": { version: 1, vendor: "x", validate: (value: unknown) => ({ value }) },
    };
    assert.throws(
      () => server.tool({ name: "v", inputSchema: validateOnly as never }, () => "ok"),
      /tool v: inputSchema: .*cannot describe itself as JSON Schema/,
    );
    const failing = {
      "~standard": {
        version: 1,
        vendor: "other",
        validate: (value: unknown) => ({ value }),
        jsonSchema: {
          input: () => {
            throw new Error("no JSON Schema for this");
          },
          output: () => ({}),
        },
      },
    };
    assert.throws(
      () => server.tool({ name: "t", inputSchema: failing as never }, () => "ok"),
      /tool t: inputSchema: cannot be converted to JSON Schema: no JSON Schema for this/,
    );
  });
});
