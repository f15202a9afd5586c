import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import {
  InputRequiredError,
  InvalidResultError,
  isResourceNotFound,
} from "../../src/client/results.js";
import { JsonRpcError, LocalError } from "../../src/jsonrpc/errors.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import type { Transport } from "../../src/protocol/transport.js";
import { discoverResult, errorReply, type FakeServer, fakePair, metaOf } from "./fake-server.js";

const clientInfo = { name: "test-client", version: "0.0.1" };
const capabilities = { elicitation: {} };
const protocolMeta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": capabilities,
  "io.modelcontextprotocol/clientInfo": clientInfo,
};

async function modernClient(
  setup: (server: FakeServer) => void,
  options: Partial<ConstructorParameters<typeof McpClient>[0]> = {},
): Promise<{ client: McpClient; server: FakeServer }> {
  const { transport, server } = fakePair();
  server.on("server/discover", discoverResult());
  setup(server);
  const client = new McpClient({ clientInfo, capabilities, ...options });
  await client.connect(transport);
  assert.equal(client.era, "modern");
  return { client, server };
}

describe("modern connections", () => {
  it("every request carries the protocol _meta, merged with the caller's", async () => {
    const { client, server } = await modernClient((server) =>
      server
        .on("tools/list", { result: { resultType: "complete", tools: [] } })
        .on("tools/call", { result: { resultType: "complete", content: [] } })
        .on("resources/read", { result: { contents: [] } })
        .on("prompts/get", { result: { messages: [] } })
        .on("completion/complete", { result: { completion: { values: ["a"] } } }),
    );
    await client.listTools();
    await client.callTool(
      "echo",
      { message: "hi" },
      {
        _meta: { traceparent: "00-abc-def-01" },
        onProgress: () => {},
      },
    );
    await client.readResource("file:///a.txt");
    await client.getPrompt("greet", { name: "x" });
    await client.complete({ type: "ref/prompt", name: "greet" }, { name: "name", value: "a" });
    await client.setLogLevel("warning");
    await client.listTools({ cursor: "next" });

    const requests = server.requests().filter((request) => request.method !== "server/discover");
    assert.equal(requests.length, 6);
    for (const request of requests) {
      const meta = metaOf(request);
      for (const [key, value] of Object.entries(protocolMeta)) {
        assert.deepEqual(meta[key], value, `${request.method} ${key}`);
      }
    }
    const call = server.requests("tools/call")[0]!;
    assert.deepEqual(call.params, {
      name: "echo",
      arguments: { message: "hi" },
      _meta: { ...protocolMeta, traceparent: "00-abc-def-01", progressToken: call.id },
    });
    assert.equal(
      metaOf(server.requests("tools/list")[0])["io.modelcontextprotocol/logLevel"],
      undefined,
    );
    // setLogLevel on modern is not a request; it rides on the following ones.
    assert.equal(server.requests("logging/setLevel").length, 0);
    assert.equal(
      metaOf(server.requests("tools/list")[1])["io.modelcontextprotocol/logLevel"],
      "warning",
    );
    assert.equal(server.requests("tools/list")[1]?.params?.cursor, "next");
    await client.close();
  });

  it("treats an absent resultType as complete and rejects the ones it cannot handle", async () => {
    const { client } = await modernClient((server) =>
      server.on("tools/call", (request) => {
        const name = request.params?.name;
        if (name === "plain") return { result: { content: [{ type: "text", text: "ok" }] } };
        if (name === "ask") {
          return {
            result: {
              resultType: "input_required",
              inputRequests: { q: { method: "elicitation/create", params: {} } },
              requestState: "opaque",
            },
          };
        }
        return { result: { resultType: "mystery", content: [] } };
      }),
    );
    const plain = await client.callTool("plain", {});
    assert.deepEqual(plain.content, [{ type: "text", text: "ok" }]);
    await assert.rejects(client.callTool("ask", {}), (error: Error) => {
      assert.ok(error instanceof InputRequiredError);
      assert.ok(!(error instanceof JsonRpcError));
      assert.match(error.message, /server asked for input; multi round-trip support not enabled/);
      assert.equal(error.result.requestState, "opaque");
      return true;
    });
    await assert.rejects(client.callTool("other", {}), InvalidResultError);
    await client.close();
  });

  it("recognises resource-not-found in both eras' shapes", async () => {
    const { client } = await modernClient((server) =>
      server.on("resources/read", (request) =>
        errorReply(-32602, "Resource not found", { uri: request.params?.uri }),
      ),
    );
    const error = await client.readResource("file:///missing").catch((caught: unknown) => caught);
    assert.ok(error instanceof JsonRpcError);
    assert.ok(isResourceNotFound(error));
    assert.ok(isResourceNotFound(new JsonRpcError(-32002, "Resource not found")));
    assert.ok(!isResourceNotFound(new JsonRpcError(-32602, "Invalid params", { field: "x" })));
    assert.ok(isResourceNotFound(new JsonRpcError(-32602, "Resource file:///x not found")));
    assert.ok(!isResourceNotFound(new JsonRpcError(-32601, "nope", { uri: "x" })));
    assert.ok(!isResourceNotFound(new LocalError("timeout", "x")));
    await client.close();
  });

  it("legacy-only methods fail clearly on a modern connection", async () => {
    const { client, server } = await modernClient(() => {});
    await assert.rejects(client.ping(), /ping is not available on a modern connection/);
    await assert.rejects(client.subscribeResource("file:///a"), /subscriptions\/listen/);
    assert.deepEqual(server.methods(), ["server/discover"]);
    await client.close();
  });

  it("follows nextCursor (an empty string included) and stops a cursor loop", async () => {
    const pages: Record<string, JsonObject> = {
      start: { tools: [{ name: "a", inputSchema: {} }], nextCursor: "" },
      "": { tools: [{ name: "b", inputSchema: {} }], nextCursor: "p3" },
      p3: { tools: [{ name: "c", inputSchema: {} }] },
    };
    const { client, server } = await modernClient((server) =>
      server
        .on("tools/list", (request) => {
          const cursor = request.params?.cursor;
          return { result: pages[typeof cursor === "string" ? cursor : "start"]! };
        })
        .on("prompts/list", (request) => ({
          result: { prompts: [], nextCursor: request.params?.cursor === "x" ? "y" : "x" },
        })),
    );
    const tools = await client.listAllTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ["a", "b", "c"],
    );
    assert.deepEqual(
      server.requests("tools/list").map((request) => request.params?.cursor),
      [undefined, "", "p3"],
    );
    await assert.rejects(client.listAllPrompts(), /repeated cursor "x"/);
    assert.equal(server.requests("prompts/list").length, 3);
    await client.close();
  });

  it("switches version once when a later request gets -32022", async () => {
    let accept = "2026-07-28";
    const { client, server } = await modernClient(
      (server) =>
        server.on("tools/list", (request) =>
          metaOf(request)["io.modelcontextprotocol/protocolVersion"] === accept
            ? { result: { tools: [] } }
            : errorReply(-32022, "Unsupported protocol version", { supported: [accept] }),
        ),
      { protocolVersion: "2027-01-01" },
    );
    // discover offered only 2026-07-28, so that is in use already.
    assert.equal(client.protocolVersion, "2026-07-28");
    accept = "2027-01-01"; // the server was replaced by a newer one
    await client.listTools();
    assert.equal(client.protocolVersion, "2027-01-01");
    assert.equal(server.requests("tools/list").length, 2);
    await client.close();
  });
  it("shares one protocol _meta between requests on a byte stream, never one a middleware changed", async () => {
    // The client sends the same frozen `_meta` object on every request of a transport that
    // serialises; a middleware gets its own copy, so what it changes stays in its request.
    const { transport, server } = fakePair();
    const stream: Transport = {
      kind: "stream",
      get closed() {
        return transport.closed;
      },
      start: (receiver) => transport.start(receiver),
      send: (message, options) => transport.send(message, options),
      close: () => transport.close(),
    };
    server.on("server/discover", discoverResult());
    server.on("tools/list", { result: { resultType: "complete", tools: [] } });
    const client = new McpClient({ clientInfo, capabilities });
    await client.connect(stream);
    await client.listTools();
    await client.setLogLevel("info");
    await client.listTools();
    let marks = 1;
    client.use("tools/list", (ctx, next) => {
      if (marks-- > 0) (ctx.params!._meta as JsonObject)["example.com/mark"] = "changed";
      return next();
    });
    await client.listTools();
    await client.listTools({ cursor: "after" });
    const metas = server.requests("tools/list").map(metaOf);
    assert.deepEqual(metas[0], protocolMeta);
    assert.deepEqual(metas[1], { ...protocolMeta, "io.modelcontextprotocol/logLevel": "info" });
    assert.deepEqual(metas[2], {
      ...protocolMeta,
      "io.modelcontextprotocol/logLevel": "info",
      "example.com/mark": "changed",
    });
    assert.deepEqual(metas[3], { ...protocolMeta, "io.modelcontextprotocol/logLevel": "info" });
    await client.close();
  });
});
