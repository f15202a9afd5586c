/**
 * server.install() / client.install(): an extension's capability (both eras, both sides), its
 * methods, its middleware and its setup, over Streamable HTTP on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ClientExtension, McpClient } from "../../src/client/index.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { McpServer, type ServerExtension } from "../../src/server/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { serveHttp } from "../../src/transports/http/node-adapter.js";

const GREET = "example.com/greet";

/** An extension with a method, a middleware on it, a tool its setup adds, and a switch. */
function greetExtension(offered: { now: boolean }): ServerExtension {
  return {
    id: GREET,
    capability: () => (offered.now ? { version: 1 } : undefined),
    methods: {
      "greet/hello": (params, context) => {
        const declared = context.clientCapabilities.extensions as JsonObject | undefined;
        return {
          text: `hello ${String(params.name)} (${context.era})`,
          clientDeclared: declared?.[GREET] ?? null,
        };
      },
    },
    middleware: [
      {
        method: "greet/hello",
        middleware: async (ctx, next) => {
          if (ctx.params.name === "nobody") throw new JsonRpcError(-32602, "greet whom?");
          return next();
        },
      },
    ],
    setup: (server) => {
      server.tool({ name: "greet_tool" }, () => "from the extension's setup");
    },
  };
}

const clientGreet: ClientExtension = {
  id: GREET,
  capability: { accepts: ["text"] },
  methods: { "greet/ping": (params) => ({ pong: params.n ?? null }) },
};

for (const era of ["modern", "legacy"] as const) {
  describe(`extensions over HTTP, era ${era}`, () => {
    it("declares, answers, wraps and sets up; its methods go when its capability does", async () => {
      const offered = { now: true };
      const server = new McpServer({ serverInfo: { name: "x", version: "1" }, onError: () => {} });
      server.install(greetExtension(offered));
      const served = await serveHttp(server);
      const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era });
      client.install(clientGreet);
      await client.connect(new HttpClientTransport(served.url, { flavourCache: new Map() }));
      try {
        const extensions = client.serverCapabilities?.extensions as JsonObject;
        assert.deepEqual(extensions[GREET], { version: 1 });
        const reply = await client.request("greet/hello", { name: "Ada" });
        assert.deepEqual(reply.text, `hello Ada (${era})`);
        // What the client declared reached the server's handler, in either era.
        assert.deepEqual(reply.clientDeclared, { accepts: ["text"] });
        await assert.rejects(client.request("greet/hello", { name: "nobody" }), {
          code: -32602,
          message: "greet whom?",
        });
        const tools = (await client.listTools()).tools.map((tool) => tool.name);
        assert.deepEqual(tools, ["greet_tool"]);

        if (era === "legacy") {
          // The client's own method answers the server's request.
          const [session] = server.legacySessions();
          assert.deepEqual(await session!.request("greet/ping", { n: 7 }), { pong: 7 });
        }

        // Not offered any more (capabilities are rebuilt when a feature changes).
        offered.now = false;
        server.tool({ name: "another" }, () => "x");
        await assert.rejects(client.request("greet/hello", { name: "Ada" }), { code: -32601 });
      } finally {
        await client.close();
        await served.close();
      }
    });
  });
}

describe("install() refuses", () => {
  it("a second extension with the same id or a method another one answers", () => {
    const server = new McpServer({ serverInfo: { name: "x", version: "1" } });
    server.install(greetExtension({ now: true }));
    assert.throws(() => server.install(greetExtension({ now: true })), /already installed/);
    assert.throws(
      () => server.install({ id: "example.com/other", methods: { "greet/hello": () => ({}) } }),
      /already answered by example.com\/greet/,
    );
    assert.throws(() => server.install({ id: "" }), /non-empty string id/);
    const client = new McpClient({ clientInfo: { name: "c", version: "1" } });
    client.install(clientGreet);
    assert.throws(() => client.install(clientGreet), /already installed/);
  });
});
