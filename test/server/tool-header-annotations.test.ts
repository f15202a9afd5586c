/**
 * server.tool refuses a tool whose `x-mcp-header` annotations a Streamable HTTP client would
 * have to drop (2026-07-28 basic/transports/streamable-http.mdx "Schema Extension", server/tools.mdx
 * "x-mcp-header"), naming the property; valid annotations, nested ones included, still work.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { McpServer } from "../../src/server/index.js";
import { HttpClientTransport, serveHttp } from "../../src/transports/http/index.js";

function server(): McpServer {
  return new McpServer({ serverInfo: { name: "headers", version: "1" }, onError: () => {} });
}

const prop = (schema: Record<string, unknown>) => ({
  type: "object",
  properties: { region: schema, other: { type: "string" } },
});

describe("server.tool refuses invalid x-mcp-header annotations", () => {
  const cases: [string, unknown, RegExp][] = [
    ["an empty name", prop({ type: "string", "x-mcp-header": "" }), /property region: .*non-empty/],
    [
      "a non-string name",
      prop({ type: "string", "x-mcp-header": 7 }),
      /property region: .*non-empty string/,
    ],
    [
      "a number-typed property",
      prop({ type: "number", "x-mcp-header": "Region" }),
      /property region: .*string, integer or boolean/,
    ],
    [
      "an object property",
      prop({ type: "object", "x-mcp-header": "Region" }),
      /property region: .*string, integer or boolean/,
    ],
    [
      "an array property",
      prop({ type: "array", items: { type: "string" }, "x-mcp-header": "Region" }),
      /property region: .*string, integer or boolean/,
    ],
    [
      "a property with no single type",
      prop({ type: ["string", "null"], "x-mcp-header": "Region" }),
      /property region: .*string, integer or boolean/,
    ],
    [
      "a space in the name",
      prop({ type: "string", "x-mcp-header": "My Region" }),
      /region: .*"My Region" is not an HTTP token/,
    ],
    [
      "a colon in the name",
      prop({ type: "string", "x-mcp-header": "Region:" }),
      /not an HTTP token/,
    ],
    ["a slash in the name", prop({ type: "string", "x-mcp-header": "a/b" }), /not an HTTP token/],
    [
      "non-ASCII in the name",
      prop({ type: "string", "x-mcp-header": "Régión" }),
      /not an HTTP token/,
    ],
    ["CR LF in the name", prop({ type: "string", "x-mcp-header": "A\r\nB" }), /not an HTTP token/],
    [
      "names equal but for case",
      {
        type: "object",
        properties: {
          first: { type: "string", "x-mcp-header": "Region" },
          place: {
            type: "object",
            properties: { second: { type: "string", "x-mcp-header": "REGION" } },
          },
        },
      },
      /property place\.second: x-mcp-header "REGION" duplicates "Region" of first/,
    ],
    [
      "an annotation under items",
      {
        type: "object",
        properties: {
          list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } },
        },
      },
      /property list\.<items>: .*only allowed on properties reached through "properties"/,
    ],
    [
      "an annotation under anyOf",
      {
        type: "object",
        anyOf: [{ properties: { region: { type: "string", "x-mcp-header": "Region" } } }],
      },
      /property <anyOf>\.region: .*only allowed/,
    ],
    [
      "an annotation reached through $ref",
      {
        type: "object",
        properties: { region: { $ref: "#/$defs/region" } },
        $defs: { region: { type: "string", "x-mcp-header": "Region" } },
      },
      /property <\$defs>: .*only allowed/,
    ],
    [
      "an annotation under a draft-07 dependencies schema",
      {
        type: "object",
        properties: { a: { type: "string" } },
        dependencies: { a: { properties: { b: { type: "string", "x-mcp-header": "B" } } } },
      },
      /property <dependencies>\.b: .*only allowed/,
    ],
    [
      "an annotation on the schema root",
      { type: "object", "x-mcp-header": "Root" },
      /property <root>: .*only allowed/,
    ],
  ];

  for (const [label, inputSchema, reason] of cases) {
    it(`refuses ${label}`, () => {
      const mcp = server();
      assert.throws(
        () => mcp.tool({ name: "route", inputSchema: inputSchema as JsonObject }, () => "ok"),
        (error: Error) => {
          assert.match(error.message, /^Tool route has an invalid x-mcp-header annotation/);
          assert.match(error.message, reason);
          return true;
        },
      );
      // Nothing was registered.
      assert.equal(mcp.toolDefinition("route"), undefined);
    });
  }
});

describe("valid x-mcp-header annotations", () => {
  it("are registered, listed over HTTP, and mirrored on calls", async () => {
    const mcp = server();
    mcp.tool(
      {
        name: "route",
        inputSchema: {
          type: "object",
          properties: {
            region: { type: "string", "x-mcp-header": "Region" },
            count: { type: "integer", "x-mcp-header": "Count" },
            place: {
              type: "object",
              properties: { zone: { type: "boolean", "x-mcp-header": "Zone-Flag_1.x~" } },
            },
          },
        },
      },
      (args) => JSON.stringify(args),
    );
    const served = await serveHttp(mcp, { port: 0 });
    const warnings: string[] = [];
    const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era: "modern" });
    await client.connect(
      new HttpClientTransport(served.url, { onWarning: (message) => warnings.push(message) }),
    );
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((tool) => tool.name),
        ["route"],
      );
      const result = await client.callTool("route", {
        region: "eu",
        count: 2,
        place: { zone: true },
      });
      assert.equal(
        (result.content[0] as { text: string }).text,
        '{"region":"eu","count":2,"place":{"zone":true}}',
      );
      assert.deepEqual(warnings, []);
    } finally {
      await client.close();
      await served.close();
    }
  });
});
