/**
 * client.use(): middleware around every outgoing request (retry, `_meta`, logging), each multi
 * round-trip retry included, and around the server's notifications; memory and HTTP, both eras.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { NextCalledTwiceError } from "../../src/protocol/middleware.js";
import type { Transport } from "../../src/protocol/transport.js";
import { McpServer } from "../../src/server/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { serveHttp } from "../../src/transports/http/node-adapter.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import { until } from "../helpers/poll.js";

function flakyServer(): McpServer {
  const server = new McpServer({ serverInfo: { name: "flaky", version: "1" }, onError: () => {} });
  let calls = 0;
  server.tool({ name: "flaky" }, () => {
    calls += 1;
    if (calls % 2 === 1) throw new JsonRpcError(-32000, "busy, try again");
    return `answered on call ${calls}`;
  });
  server.tool({ name: "trace" }, (_args, context) =>
    JSON.stringify(context.meta["example.com/trace"] ?? null),
  );
  server.tool({ name: "ask" }, async (_args, context) => {
    const answer = await context.elicit({
      message: "Name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    });
    await context.log.info("asked");
    return `hello ${(answer.content as JsonObject).name}`;
  });
  return server;
}

const transports: Record<string, () => Promise<{ transport: Transport; close(): Promise<void> }>> =
  {
    memory: async () => {
      const [serverSide, clientSide] = createMemoryPair();
      flakyServer().connect(serverSide);
      return { transport: clientSide, close: async () => {} };
    },
    http: async () => {
      const served = await serveHttp(flakyServer());
      const transport = new HttpClientTransport(served.url, { flavourCache: new Map() });
      return { transport, close: () => served.close() };
    },
  };

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

/**
 * Calls the "wait" tool, aborts the call once its handler runs, and returns when the server has
 * had the cancellation: in order on the wire, it came before the ping that was answered.
 */
async function abortedWait(client: McpClient, started: () => boolean): Promise<void> {
  const abort = new AbortController();
  const call = client.callTool("wait", {}, { signal: abort.signal });
  await until(started);
  abort.abort();
  await assert.rejects(call);
  await client.ping();
}

for (const [name, serve] of Object.entries(transports)) {
  for (const era of ["modern", "legacy"] as const) {
    describe(`client middleware over ${name}, era ${era}`, () => {
      it("retries, injects _meta, logs each wire request and sees notifications", async () => {
        const served = await serve();
        const log: string[] = [];
        const notes: string[] = [];
        const heard: string[] = [];
        const client = new McpClient({
          clientInfo: { name: "c", version: "1" },
          era,
          logLevel: "info",
          handlers: { elicitation: () => ({ action: "accept", content: { name: "Ada" } }) },
          onNotification: (method) => notes.push(method),
        });
        client.use(async (ctx, next) => {
          const result = await next();
          const session = ctx.sessionId === undefined ? "no-session" : "session";
          if (ctx.notification) heard.push(ctx.method);
          else {
            log.push(
              `${ctx.method} ${ctx.era} ${ctx.transport} ${session} ${typeof ctx.requestId}`,
            );
          }
          return result;
        });
        // Retry once on -32000; calling next() again after it rejected is a retry.
        client.use("tools/call", async (_ctx, next) => {
          try {
            return await next();
          } catch (error) {
            if (!(error instanceof JsonRpcError) || error.code !== -32000) throw error;
            return next();
          }
        });
        client.use("tools/call", async (ctx, next) => {
          ctx.params = { ...ctx.params, _meta: { ...ctx.meta, "example.com/trace": "t-1" } };
          return next();
        });
        // A notification dropped by middleware never reaches onNotification.
        client.use("notifications/message", async () => ({}));
        await client.connect(served.transport);
        try {
          // The handshake passes through too: the era and version it is made in are known.
          const kind = name === "http" && era === "legacy" ? "session" : "no-session";
          assert.deepEqual(
            log,
            era === "modern"
              ? [`server/discover modern ${name} no-session number`]
              : [
                  `initialize legacy ${name} ${kind} number`,
                  `logging/setLevel legacy ${name} ${kind} number`,
                ],
          );
          const before = log.length;
          assert.equal(text(await client.callTool("flaky")), "answered on call 2");
          assert.equal(text(await client.callTool("trace")), '"t-1"');
          assert.equal(text(await client.callTool("ask")), "hello Ada");
          const calls = log.slice(before);
          const line = `tools/call ${era} ${name} ${kind} number`;
          // flaky (one line: the retry is inside the logger), trace, ask (twice when modern).
          assert.deepEqual(calls, Array(era === "modern" ? 4 : 3).fill(line));
          assert.ok(heard.includes("notifications/message"), heard.join(","));
          assert.ok(!notes.includes("notifications/message"), notes.join(","));
        } finally {
          await client.close();
          await served.close();
        }
      });
    });
  }
}

describe("client middleware and the era probe", () => {
  for (const eras of ["dual", "legacy"] as const) {
    it(`sees the probe with no era yet, then the handshake (server eras: ${eras})`, async () => {
      const [serverSide, clientSide] = createMemoryPair();
      new McpServer({ serverInfo: { name: "s", version: "1" }, eras }).connect(serverSide);
      const client = new McpClient({ clientInfo: { name: "c", version: "1" } });
      const seen: string[] = [];
      client.use(async (ctx, next) => {
        seen.push(`${ctx.method} ${ctx.era} ${ctx.protocolVersion} ${ctx.sending}`);
        return next();
      });
      await client.connect(clientSide);
      await client.close();
      assert.deepEqual(
        seen,
        eras === "dual"
          ? ["server/discover undefined 2026-07-28 true"]
          : [
              "server/discover undefined 2026-07-28 true",
              "initialize legacy 2025-11-25 true",
              // The client's own notification, once the version is agreed.
              "notifications/initialized legacy 2025-11-25 true",
            ],
      );
    });
  }
});

describe("client middleware and the notifications the client sends", () => {
  for (const drop of [false, true]) {
    it(`sees notifications/cancelled for an aborted call${drop ? ", and may drop it" : ""}`, async () => {
      const [serverSide, clientSide] = createMemoryPair();
      const server = new McpServer({ serverInfo: { name: "s", version: "1" }, eras: "legacy" });
      let started = false;
      let cancelled = false;
      server.tool({ name: "wait" }, async (_args, context) => {
        started = true;
        await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
        cancelled = true;
        return "late";
      });
      server.connect(serverSide);
      const client = new McpClient({ clientInfo: { name: "c", version: "1" } });
      const sent: string[] = [];
      client.use(async (ctx, next) => {
        if (ctx.notification && ctx.sending) {
          sent.push(`${ctx.method} ${ctx.params.requestId ?? ""}`.trim());
          if (drop && ctx.method === "notifications/cancelled") return {};
        }
        return next();
      });
      await client.connect(clientSide);
      await abortedWait(client, () => started);
      assert.equal(sent[0], "notifications/initialized");
      assert.match(sent[1] ?? "", /^notifications\/cancelled \d+$/);
      assert.equal(cancelled, !drop);
      await client.close();
    });
  }
});

describe("middleware and the notifications the engine acts on", () => {
  for (const drop of [false, true]) {
    it(`client middleware sees notifications/progress before the call's onProgress${drop ? ", and may drop it" : ""}`, async () => {
      const [serverSide, clientSide] = createMemoryPair();
      const server = new McpServer({ serverInfo: { name: "s", version: "1" } });
      server.tool({ name: "steps" }, async (_args, context) => {
        await context.progress(1, 2, "half");
        await context.progress(2, 2, "done");
        return "ok";
      });
      server.connect(serverSide);
      const client = new McpClient({ clientInfo: { name: "c", version: "1" } });
      const seen: string[] = [];
      client.use("notifications/progress", async (ctx, next) => {
        seen.push(`${ctx.sending ? "sent" : "received"} ${String(ctx.params.progress)}`);
        return drop ? {} : next();
      });
      await client.connect(clientSide);
      const reported: number[] = [];
      const result = await client.callTool(
        "steps",
        {},
        {
          onProgress: (update) => reported.push(update.progress),
        },
      );
      assert.equal(text(result), "ok");
      assert.deepEqual(seen, ["received 1", "received 2"]);
      assert.deepEqual(reported, drop ? [] : [1, 2]);
      await client.close();
    });

    it(`server middleware sees notifications/cancelled before the engine${drop ? ", and may drop it" : ""}`, async () => {
      const [serverSide, clientSide] = createMemoryPair();
      const server = new McpServer({ serverInfo: { name: "s", version: "1" }, eras: "legacy" });
      let started = false;
      let finish: (() => void) | undefined;
      let cancelled = false;
      server.tool({ name: "wait" }, async (_args, context) => {
        started = true;
        await new Promise<void>((resolve) => {
          finish = resolve;
          context.signal.addEventListener("abort", () => resolve());
        });
        cancelled = context.signal.aborted;
        return "late";
      });
      const heard: string[] = [];
      server.use("notifications/cancelled", async (ctx, next) => {
        heard.push(`${ctx.sending ? "sent" : "received"} ${String(ctx.params.requestId)}`);
        return drop ? {} : next();
      });
      server.connect(serverSide);
      const client = new McpClient({ clientInfo: { name: "c", version: "1" } });
      await client.connect(clientSide);
      await abortedWait(client, () => started);
      assert.equal(heard.length, 1);
      assert.match(heard[0] ?? "", /^received \d+$/);
      // Dropped, the cancellation never reached the engine: the handler runs on until let go.
      assert.equal(cancelled, !drop);
      finish?.();
      await client.close();
    });
  }
});

describe("client middleware rules", () => {
  it("a second next() after one that succeeded throws, and the caller sees it", async () => {
    const [serverSide, clientSide] = createMemoryPair();
    flakyServer().connect(serverSide);
    const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era: "modern" });
    client.use("tools/call", async (_ctx, next) => {
      await next().catch(() => undefined);
      await next().catch(() => undefined);
      return next();
    });
    await client.connect(clientSide);
    try {
      await assert.rejects(client.callTool("flaky"), NextCalledTwiceError);
    } finally {
      await client.close();
    }
  });

  it("a middleware that answers itself sends nothing", async () => {
    const [serverSide, clientSide] = createMemoryPair();
    flakyServer().connect(serverSide);
    const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era: "modern" });
    client.use("tools/call", async () => ({ content: [{ type: "text", text: "local" }] }));
    await client.connect(clientSide);
    try {
      assert.equal(text(await client.callTool("flaky")), "local");
    } finally {
      await client.close();
    }
  });
});
