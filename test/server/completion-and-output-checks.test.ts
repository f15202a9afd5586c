/**
 * completion/complete returns at most 100 values with total and hasMore right (2026-07-28
 * server/utilities/completion.mdx, "Maximum 100 items per response"), and a tool's result that
 * misses its outputSchema is reported against `structuredContent`, not `arguments`.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { Session } from "../../src/protocol/session.js";
import type { Transport } from "../../src/protocol/transport.js";
import { McpServer } from "../../src/server/index.js";
import { tcpConnector } from "../helpers/connectors.js";

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
};

const numbers = (count: number) => Array.from({ length: count }, (_, i) => `v${i}`);

function server(): McpServer {
  const server = new McpServer({ serverInfo: { name: "checks", version: "1" }, onError: () => {} });
  server.prompt({ name: "pick", arguments: [{ name: "n" }] }, () => ({ messages: [] }), {
    complete: { n: (value) => numbers(Number(value)) },
  });
  server.resourceTemplate(
    { uriTemplate: "mem://items/{id}", name: "items" },
    (uri) => [{ uri, text: "" }],
    { complete: { id: (value) => numbers(Number(value)) } },
  );
  server.tool(
    {
      name: "sum",
      outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
    },
    (args) => ({ content: [], structuredContent: { sum: args.bad ? "three" : 3 } }),
  );
  return server;
}

describe("completion and output checks on the wire", () => {
  let client: Session;
  let cleanup: () => Promise<void>;
  before(async () => {
    let transport: Transport;
    ({ transport, cleanup } = await tcpConnector(server()));
    client = new Session(transport);
    client.start();
  });
  after(async () => {
    await client.close();
    await cleanup();
  });

  const complete = async (ref: JsonObject, name: string, count: number) =>
    (
      await client.request("completion/complete", {
        ref,
        argument: { name, value: String(count) },
        _meta: meta,
      })
    ).completion as { values: string[]; total?: number; hasMore?: boolean };

  for (const [label, ref, name] of [
    ["a prompt argument", { type: "ref/prompt", name: "pick" }, "n"],
    ["a template variable", { type: "ref/resource", uri: "mem://items/{id}" }, "id"],
  ] as const) {
    it(`caps ${label} at 100 values, with total and hasMore`, async () => {
      const many = await complete(ref, name, 250);
      assert.equal(many.values.length, 100);
      assert.deepEqual(many.values.slice(0, 2), ["v0", "v1"]);
      assert.equal(many.total, 250);
      assert.equal(many.hasMore, true);

      const exactly = await complete(ref, name, 100);
      assert.equal(exactly.values.length, 100);
      assert.equal(exactly.total, 100);
      assert.equal(exactly.hasMore, false);

      const few = await complete(ref, name, 3);
      assert.deepEqual(few, { values: ["v0", "v1", "v2"], total: 3, hasMore: false });
    });
  }

  it("names structuredContent when a result misses the outputSchema", async () => {
    const good = await client.request("tools/call", { name: "sum", arguments: {}, _meta: meta });
    assert.deepEqual(good.structuredContent, { sum: 3 });
    await assert.rejects(
      client.request("tools/call", { name: "sum", arguments: { bad: true }, _meta: meta }),
      (error: unknown) => {
        assert.ok(error instanceof JsonRpcError);
        assert.equal(error.code, -32603);
        assert.match(error.message, /structuredContent\/sum: must be number/);
        assert.doesNotMatch(error.message, /arguments/);
        return true;
      },
    );
  });
});
