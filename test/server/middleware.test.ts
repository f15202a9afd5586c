/**
 * server.use(): the same middleware on every transport (memory, a stdio child, Streamable HTTP
 * on 127.0.0.1) and in both eras, seen from a real McpClient.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { DORMANT, type MaybeDormant } from "../../src/protocol/middleware.js";
import type { Transport } from "../../src/protocol/transport.js";
import type { ServerMiddleware } from "../../src/server/middleware-chain.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { serveHttp } from "../../src/transports/http/node-adapter.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import { StdioClientTransport } from "../../src/transports/stdio/client.js";
import { middlewareServer } from "../fixtures/middleware-features.js";

const stdioFixture = new URL("../fixtures/middleware-stdio-server.js", import.meta.url).pathname;

interface Served {
  transport: Transport;
  /** What the server's logging middleware writes for a request on this transport. */
  line: string;
  close(): Promise<void>;
}

const transports: Record<string, (era: "modern" | "legacy") => Promise<Served>> = {
  memory: async () => {
    const [serverSide, clientSide] = createMemoryPair();
    middlewareServer().connect(serverSide);
    return { transport: clientSide, line: "memory no-session -", close: async () => {} };
  },
  stdio: async () => ({
    transport: new StdioClientTransport({ command: process.execPath, args: [stdioFixture] }),
    line: "stdio no-session -",
    close: async () => {},
  }),
  http: async (era) => {
    const served = await serveHttp(middlewareServer(), { authenticate: () => ({ user: "ada" }) });
    const session = era === "legacy" ? "session" : "no-session";
    return {
      transport: new HttpClientTransport(served.url, { flavourCache: new Map() }),
      line: `http ${session} ada`,
      close: () => served.close(),
    };
  },
};

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

async function rejection(promise: Promise<unknown>): Promise<JsonRpcError> {
  const error = await promise.then(
    () => assert.fail("expected an error reply"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof JsonRpcError, `expected a JsonRpcError, got ${String(error)}`);
  return error;
}

for (const [name, serve] of Object.entries(transports)) {
  for (const era of ["modern", "legacy"] as const) {
    describe(`server middleware over ${name}, era ${era}`, () => {
      it("wraps every request and notification, after routing and before the handler", async () => {
        const served = await serve(era);
        const client = new McpClient({
          clientInfo: { name: "c", version: "1" },
          era,
          handlers: { elicitation: () => ({ action: "accept", content: { name: "Ada" } }) },
        });
        await client.connect(served.transport);
        try {
          // Filtered from the list, and refused on call, by the same middleware.
          const tools = (await client.listTools()).tools.map((tool) => tool.name);
          assert.ok(tools.includes("shout") && !tools.includes("secret"));
          const hidden = await rejection(client.callTool("secret", {}));
          assert.equal(hidden.code, -32602);

          // The handler validates what the middleware left: "hi" fails the pattern, "HI" passes.
          assert.equal(text(await client.callTool("shout", { text: "hi" })), "HI");
          assert.equal(text(await client.callTool("order")), "a> b> handler <b <a");
          assert.equal(text(await client.callTool("cached")), "from the middleware");

          const refused = await rejection(client.callTool("forbidden"));
          assert.deepEqual(
            [refused.code, refused.message, refused.data],
            [-32001, "not for you", { why: "policy" }],
          );
          // A middleware's bug is -32603 with nothing of it leaked; so is a second next().
          const buggy = await rejection(client.callTool("buggy"));
          assert.equal(buggy.code, -32603);
          assert.equal(buggy.message, "Internal error");
          assert.doesNotMatch(JSON.stringify(buggy.data ?? null), /passwd/);
          const twice = await rejection(client.callTool("twice"));
          assert.deepEqual([twice.code, twice.message], [-32603, "Internal error"]);

          assert.equal(text(await client.callTool("signup")), "hello Ada");

          const seen = JSON.parse(text(await client.callTool("seen"))) as string[];
          assert.ok(seen.includes(`tools/list ${era} ${served.line} number`), seen.join("\n"));
          assert.ok(seen.includes(`tools/call ${era} ${served.line} number`), seen.join("\n"));
          // Each multi round-trip round once; input-required is an ordinary result there.
          const rounds = seen.filter((line) => line.startsWith("signup round"));
          assert.deepEqual(
            rounds,
            era === "modern"
              ? ["signup round input_required", "signup round complete"]
              : ["signup round complete"],
          );
          if (era === "legacy") {
            assert.ok(seen.includes(`initialize legacy ${served.line} number`), seen.join("\n"));
            assert.ok(
              seen.includes(`notifications/initialized legacy ${served.line} note`),
              seen.join("\n"),
            );
          }
          assert.ok(!seen.some((line) => line.includes("reached a tools/call middleware")));
        } finally {
          await client.close();
          await served.close();
        }
      });
    });
  }
}

describe("server middleware and a handler's own failure", () => {
  it("passes it through untouched, as without middleware, and reports no middleware bug", async () => {
    const answers: string[] = [];
    // None; one handing back next()'s own promise; one handing back a promise of its own.
    const middlewares: (ServerMiddleware | undefined)[] = [
      undefined,
      (_ctx, next) => next(),
      async (_ctx, next) => await next(),
    ];
    for (const middleware of middlewares) {
      const reported: string[] = [];
      const { McpServer } = await import("../../src/server/index.js");
      const server = new McpServer({
        serverInfo: { name: "s", version: "1" },
        onError: (error) => reported.push(error.message),
      });
      server.prompt({ name: "broken" }, () => {
        throw new Error("the prompt store is down");
      });
      if (middleware) server.use(middleware);
      const [serverSide, clientSide] = createMemoryPair();
      server.connect(serverSide);
      const client = new McpClient({ clientInfo: { name: "c", version: "1" } });
      await client.connect(clientSide);
      const failure = await rejection(client.getPrompt("broken"));
      answers.push(`${failure.code} ${failure.message}`);
      assert.ok(!reported.some((line) => /middleware/.test(line)), reported.join("\n"));
      await client.close();
    }
    assert.deepEqual(answers, [answers[0], answers[0], answers[0]]);
  });
});

describe("server middleware and a modern result's decoration", () => {
  it("sees the handler's bare result; the reply is decorated after the chain", async () => {
    const { McpServer } = await import("../../src/server/index.js");
    const { Session } = await import("../../src/protocol/session.js");
    const seen: unknown[] = [];
    // Handing back next()'s own promise, a promise of its own, or a result of its own.
    const middlewares: ServerMiddleware[] = [
      (_ctx, next) => next().finally(() => {}),
      (_ctx, next) => next(),
      async (_ctx, next) => {
        const result = await next();
        seen.push(result.resultType ?? "bare");
        return result;
      },
    ];
    for (const middleware of middlewares) {
      const server = new McpServer({ serverInfo: { name: "s", version: "1" } });
      server.tool({ name: "hello" }, () => "hi");
      server.use(middleware);
      const [serverSide, clientSide] = createMemoryPair();
      server.connect(serverSide);
      const client = new Session(clientSide);
      client.start();
      const reply = await client.request("tools/call", {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
        name: "hello",
        arguments: {},
      });
      assert.equal(reply.resultType, "complete");
      const replyMeta = reply._meta as Record<string, unknown>;
      assert.deepEqual(replyMeta["io.modelcontextprotocol/serverInfo"], {
        name: "s",
        version: "1",
      });
      await client.close();
    }
    assert.deepEqual(seen, ["bare"]);
  });
});

describe("a dormant middleware", () => {
  it("is skipped while it says it is dormant, and runs again once it is not", async () => {
    const { McpServer } = await import("../../src/server/index.js");
    const server = new McpServer({ serverInfo: { name: "s", version: "1" } });
    server.tool({ name: "echo" }, () => ({ content: [{ type: "text", text: "hi" }] }));
    let asleep = true;
    let ran = 0;
    const middleware: ServerMiddleware & MaybeDormant = (_ctx, next) => {
      ran++;
      return next();
    };
    middleware[DORMANT] = () => asleep;
    server.use(middleware);
    const [serverSide, clientSide] = createMemoryPair();
    server.connect(serverSide);
    const client = new McpClient({ clientInfo: { name: "c", version: "1" } });
    await client.connect(clientSide);
    assert.equal(text(await client.callTool("echo")), "hi");
    assert.equal(ran, 0);
    asleep = false;
    assert.equal(text(await client.callTool("echo")), "hi");
    assert.ok(ran >= 1);
    await client.close();
  });
});
