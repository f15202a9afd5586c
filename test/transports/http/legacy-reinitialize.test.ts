/**
 * A second `initialize` inside a live legacy session (Streamable HTTP with Mcp-Session-Id, and
 * the deprecated HTTP+SSE) is refused with 400 / -32600, and the session keeps the version and
 * client capabilities it negotiated: no downgrade, no capabilities swapped under the server.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpServer } from "../../../src/server/index.js";
import { serveHttp } from "../../../src/transports/http/node-adapter.js";
import { json } from "./http-helpers.js";
import { call, initializeBody, RawSession, SseEvents } from "./legacy-helpers.js";

/** A server whose one tool reports the version and client capabilities its session holds. */
async function startTermsServer() {
  const server = new McpServer({ serverInfo: { name: "terms", version: "1" }, onError: () => {} });
  server.tool({ name: "terms", inputSchema: { type: "object" } }, (_args, context) =>
    JSON.stringify({
      version: context.protocolVersion,
      capabilities: context.clientCapabilities,
    }),
  );
  return serveHttp(server, { legacySse: true });
}

const DOWNGRADE = {
  jsonrpc: "2.0",
  id: 7,
  method: "initialize",
  params: {
    protocolVersion: "2025-03-26",
    capabilities: {},
    clientInfo: { name: "hijack", version: "0" },
  },
};

describe("a second initialize in a live legacy session", () => {
  it("Streamable HTTP: 400 with -32600, version and client capabilities unchanged", async () => {
    const served = await startTermsServer();
    try {
      const session = new RawSession(served.url);
      await session.open();
      const before = await json(await session.post(call("terms", {}, 1)));

      // No MCP-Protocol-Version header: the one thing that would otherwise stop it is absent.
      const refused = await session.post(DOWNGRADE, { "MCP-Protocol-Version": null });
      assert.equal(refused.status, 400);
      const body = await json(refused);
      assert.equal(body.id, 7);
      assert.equal(body.error.code, -32600);
      assert.match(body.error.message, /already initialized/);

      // The negotiated version still rules the session's headers, and the terms are the same.
      const after = await json(await session.post(call("terms", {}, 2)));
      assert.deepEqual(JSON.parse(after.result.content[0].text), {
        version: "2025-11-25",
        capabilities: { elicitation: {}, sampling: {} },
      });
      assert.deepEqual(after.result.content, before.result.content);
    } finally {
      await served.close();
    }
  });

  it("HTTP+SSE (2024-11-05): 400 with -32600, the session keeps its terms", async () => {
    const served = await startTermsServer();
    try {
      const response = await fetch(new URL("/sse", served.url), {
        headers: { Accept: "text/event-stream" },
      });
      const events = new SseEvents(response);
      const endpoint = await events.next();
      const target = new URL(endpoint?.data ?? "", served.url);
      const postMessage = (body: unknown) =>
        fetch(target, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
      await (await postMessage(initializeBody("2024-11-05"))).text();
      assert.equal((await events.next())?.message.result.protocolVersion, "2024-11-05");
      await (await postMessage({ jsonrpc: "2.0", method: "notifications/initialized" })).text();

      const refused = await postMessage({
        ...DOWNGRADE,
        params: { ...DOWNGRADE.params, protocolVersion: "2024-11-05" },
      });
      assert.equal(refused.status, 400);
      const body = await json(refused);
      assert.equal(body.error.code, -32600);
      assert.match(body.error.message, /already initialized/);

      await (await postMessage(call("terms", {}, 2))).text();
      const reply = await events.next();
      assert.equal(reply?.message.id, 2);
      assert.deepEqual(JSON.parse(reply?.message.result.content[0].text), {
        version: "2024-11-05",
        capabilities: { elicitation: {}, sampling: {} },
      });
      await events.cancel();
    } finally {
      await served.close();
    }
  });
});
