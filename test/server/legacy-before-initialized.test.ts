/**
 * Legacy sessions: the server sends no request (elicitation, sampling, roots) before the
 * client's notifications/initialized (2025-11-25 basic/lifecycle.mdx: SHOULD NOT). A handler
 * that asks earlier waits for it; a client that never sends it gets a clear error.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { JsonRpcMessage } from "../../src/jsonrpc/types.js";
import { connectSocket, listenSocket } from "../../src/transports/socket/index.js";
import { buildSpecRulesServer } from "../fixtures/spec-rules-server.js";
import { RawStdioServer, type Wire } from "../hardening/raw-stdio.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/spec-rules-server.js", import.meta.url));

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: "init",
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: { elicitation: {} },
    clientInfo: { name: "t", version: "1" },
  },
});
const askCall = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ask_after_log" } };

describe("legacy: no server request before notifications/initialized", () => {
  it("stdio: the question waits for initialized, then the call completes", async () => {
    const server = new RawStdioServer(FIXTURE);
    try {
      await server.line(initialize);
      await server.replyTo("init");
      await server.line(JSON.stringify(askCall));
      // The handler logs just before it asks; a ping sent after the log is answered after
      // anything the handler sent right away.
      await server.reply((message) => message?.method === "notifications/message", "the log");
      await server.line(JSON.stringify({ jsonrpc: "2.0", id: "ping", method: "ping" }));
      await server.replyTo("ping");
      assert.equal(
        server.replies.some((message) => message?.method === "elicitation/create"),
        false,
        "asked before initialized",
      );
      await server.line(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
      const asked: Wire = await server.reply(
        (message) => message?.method === "elicitation/create",
        "the question",
      );
      await server.line(
        JSON.stringify({
          jsonrpc: "2.0",
          id: asked.id,
          result: { action: "accept", content: { name: "Ada" } },
        }),
      );
      const reply: Wire = await server.replyTo(1);
      assert.match(reply.result.content[0].text, /Ada/);
    } finally {
      await server.stop();
    }
  });

  it("TCP: a client that never sends initialized gets a clear error, and nothing is asked", async () => {
    const server = buildSpecRulesServer({ session: { requestTimeoutMs: 200 } });
    const listener = await listenSocket("tcp://127.0.0.1:0", (transport) => {
      server.connect(transport);
    });
    const client = await connectSocket(listener.address);
    const received: Wire[] = [];
    let wake = () => {};
    client.start({
      message: (message) => {
        received.push(message);
        wake();
      },
    });
    const replyTo = async (id: string | number): Promise<Wire> => {
      for (;;) {
        const found = received.find((message) => message.id === id && !("method" in message));
        if (found) return found;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    };
    try {
      await client.send(JSON.parse(initialize) as JsonRpcMessage);
      await replyTo("init");
      await client.send(askCall as JsonRpcMessage);
      const reply = await replyTo(1);
      assert.equal(reply.error?.code, -32600);
      assert.match(reply.error.message, /notifications\/initialized/);
      assert.equal(
        received.some((message) => message.method === "elicitation/create"),
        false,
      );
    } finally {
      await client.close();
      await listener.close();
      await server.close();
    }
  });
});
