/**
 * A requestState is bound to a digest of the request's salient parameters (2026-07-28
 * basic/patterns/mrtr.mdx, Server Requirements: "the method name and a digest of its salient
 * parameters"): answers collected for one call's arguments cannot complete a call with others.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { McpServer } from "../../src/server/index.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";
import { mcpHeaders, type Wire } from "../transports/http/http-helpers.js";

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
};
const CONFIRM = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Go ahead?",
    requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
  },
} as const;
const YES = { confirm: { action: "accept", content: { ok: true } } };

function server(): McpServer {
  const mcp = new McpServer({ serverInfo: { name: "bind", version: "1" }, onError: () => {} });
  mcp.tool(
    {
      name: "transfer",
      inputSchema: {
        type: "object",
        properties: { to: { type: "string" }, amount: { type: "integer" }, memo: {} },
      },
    },
    async (args, context) => {
      await context.input({ confirm: CONFIRM });
      return `sent ${args.amount} to ${args.to}`;
    },
  );
  mcp.prompt({ name: "letter", arguments: [{ name: "to" }] }, async (args, context) => {
    await context.input({ confirm: CONFIRM });
    return { messages: [{ role: "user", content: { type: "text", text: `Dear ${args.to}` } }] };
  });
  mcp.resource({ uri: "mem://vault", name: "vault" }, async (uri, context) => {
    await context.input({ confirm: CONFIRM });
    return [{ uri, text: "open" }];
  });
  return mcp;
}

let served: ServedHttp;
let nextId = 1;

async function send(method: string, params: JsonObject): Promise<Wire> {
  const body = { jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: meta } };
  const response = await fetch(served.url, {
    method: "POST",
    headers: mcpHeaders(body),
    body: JSON.stringify(body),
  });
  return response.json();
}

/** The first round of a call: its requestState. */
async function stateFor(method: string, params: JsonObject): Promise<string> {
  const first = await send(method, params);
  assert.equal(first.result?.resultType, "input_required", JSON.stringify(first));
  return first.result.requestState;
}

describe("requestState is bound to the call's arguments", () => {
  before(async () => {
    served = await serveHttp(server(), { port: 0 });
  });
  after(() => served.close());

  it("tools/call: a state issued for call A does not complete call B", async () => {
    const callA = { name: "transfer", arguments: { to: "alice", amount: 5 } };
    const requestState = await stateFor("tools/call", callA);

    const retryB = await send("tools/call", {
      name: "transfer",
      arguments: { to: "mallory", amount: 5000 },
      requestState,
      inputResponses: YES,
    });
    assert.equal(retryB.error?.code, -32602, JSON.stringify(retryB));
    assert.match(retryB.error.message, /requestState was issued for other arguments/);

    // Nor with arguments added, or taken away.
    for (const other of [{ ...callA.arguments, memo: "x" }, {}]) {
      const retry = await send("tools/call", {
        name: "transfer",
        arguments: other,
        requestState,
        inputResponses: YES,
      });
      assert.equal(retry.error?.code, -32602, JSON.stringify(retry));
    }

    // The same arguments, keys in another order, complete the call.
    const retryA = await send("tools/call", {
      name: "transfer",
      arguments: { amount: 5, to: "alice" },
      requestState,
      inputResponses: YES,
    });
    assert.equal(retryA.result?.content?.[0]?.text, "sent 5 to alice", JSON.stringify(retryA));
  });

  it("tools/call: nested arguments are compared whole, key order aside", async () => {
    const requestState = await stateFor("tools/call", {
      name: "transfer",
      arguments: { to: "alice", amount: 1, memo: { tags: ["a", "b"], note: { x: 1, y: 2 } } },
    });
    const changed = await send("tools/call", {
      name: "transfer",
      arguments: { to: "alice", amount: 1, memo: { tags: ["b", "a"], note: { x: 1, y: 2 } } },
      requestState,
      inputResponses: YES,
    });
    assert.equal(changed.error?.code, -32602);
    const reordered = await send("tools/call", {
      name: "transfer",
      arguments: { memo: { note: { y: 2, x: 1 }, tags: ["a", "b"] }, amount: 1, to: "alice" },
      requestState,
      inputResponses: YES,
    });
    assert.equal(reordered.result?.content?.[0]?.text, "sent 1 to alice");
  });

  it("prompts/get: a state issued for one argument set does not complete another", async () => {
    const requestState = await stateFor("prompts/get", {
      name: "letter",
      arguments: { to: "Ada" },
    });
    const other = await send("prompts/get", {
      name: "letter",
      arguments: { to: "Eve" },
      requestState,
      inputResponses: YES,
    });
    assert.equal(other.error?.code, -32602);
    assert.match(other.error.message, /other arguments/);
    const same = await send("prompts/get", {
      name: "letter",
      arguments: { to: "Ada" },
      requestState,
      inputResponses: YES,
    });
    assert.match(JSON.stringify(same.result?.messages), /Dear Ada/);
  });

  it("tools/call: absent arguments and {} are the same call", async () => {
    const requestState = await stateFor("tools/call", { name: "transfer" });
    const retry = await send("tools/call", {
      name: "transfer",
      arguments: {},
      requestState,
      inputResponses: YES,
    });
    assert.equal(retry.result?.content?.[0]?.text, "sent undefined to undefined");
  });

  it("resources/read: bound to the URI (unchanged)", async () => {
    const requestState = await stateFor("resources/read", { uri: "mem://vault" });
    const done = await send("resources/read", {
      uri: "mem://vault",
      requestState,
      inputResponses: YES,
    });
    assert.equal(done.result?.contents?.[0]?.text, "open");
  });
});
