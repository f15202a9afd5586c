/**
 * Our client's legacy sessions over the node:http carrier (the default without a `fetch`
 * option), against the mcpwire server on 127.0.0.1: a session's POSTs share kept-alive
 * connections, close() DELETEs the session and leaves no socket behind, and a user's fetch,
 * when given, still carries every request of the session.
 */
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { after, before, describe, it } from "node:test";
import { McpClient } from "../../../src/client/index.js";
import { HttpClientTransport } from "../../../src/transports/http/client/client-transport.js";
import { until } from "../../helpers/poll.js";
import { type LegacyServed, startLegacyServer } from "./legacy-helpers.js";

const clientInfo = { name: "legacy-carrier-test", version: "1.0.0" };

/** Client-side TCP sockets of this process and their server ends (both are TCPSocketWrap). */
function tcpSockets(): number {
  return process.getActiveResourcesInfo().filter((name) => name === "TCPSocketWrap").length;
}

async function callEcho(client: McpClient, text: string): Promise<void> {
  const reply = await client.callTool("echo", { text });
  assert.deepEqual(reply.content, [{ type: "text", text }]);
}

describe("legacy sessions over the node:http carrier", { timeout: 30_000 }, () => {
  let served: LegacyServed;
  const seen: { method: string; session: string | undefined; version: string | undefined }[] = [];
  let connections = 0;
  const onRequest = (request: IncomingMessage) => {
    const header = (name: string) => request.headers[name] as string | undefined;
    seen.push({
      method: request.method ?? "",
      session: header("mcp-session-id"),
      version: header("mcp-protocol-version"),
    });
  };
  before(async () => {
    served = await startLegacyServer();
    served.server.on("request", onRequest);
    served.server.on("connection", () => connections++);
  });
  after(() => served.close());

  it("a session's POSTs share kept-alive connections; the GET stream holds one of its own", async () => {
    seen.length = 0;
    connections = 0;
    const transport = new HttpClientTransport(served.url, { flavourCache: new Map() });
    const client = new McpClient({ clientInfo, era: "legacy" });
    await client.connect(transport);
    const sessionId = transport.sessionId;
    assert.ok(sessionId);
    await until(() => seen.some((request) => request.method === "GET"));
    for (let i = 0; i < 10; i++) await callEcho(client, `call ${i}`);
    const steps = await client.callTool("steps", {});
    assert.deepEqual(steps.content, [{ type: "text", text: "done" }]);
    // initialize, initialized, 11 calls and the DELETE on one; the standalone GET stream on another.
    await client.close();
    assert.equal(connections, 2);
    const inSession = seen.slice(1);
    assert.deepEqual(
      inSession.filter((request) => request.session !== sessionId || !request.version),
      [],
      "every request after initialize carries the session and the negotiated version",
    );
    assert.equal(seen.at(-1)?.method, "DELETE");
  });

  it("close() leaves no socket: the POSTs' connections, the GET stream and the DELETE's", async () => {
    const transport = new HttpClientTransport(served.url, { flavourCache: new Map() });
    const client = new McpClient({ clientInfo, era: "legacy" });
    await client.connect(transport);
    await Promise.all([1, 2, 3, 4].map((i) => callEcho(client, `parallel ${i}`)));
    assert.ok(tcpSockets() >= 4, "kept-alive sockets exist before close");
    await client.close();
    // Node's server keeps idle connections 5 s: gone sooner means the client closed them.
    await until(() => tcpSockets() === 0, "no TCP socket left", 3000);
  });

  it("a user fetch, when given, carries every request of the session", async () => {
    seen.length = 0;
    const calls: string[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      calls.push(String(init?.method));
      return fetch(input, init);
    };
    const transport = new HttpClientTransport(served.url, {
      flavourCache: new Map(),
      fetch: recordingFetch,
    });
    const client = new McpClient({ clientInfo, era: "legacy" });
    await client.connect(transport);
    await until(() => calls.includes("GET"));
    await callEcho(client, "through fetch");
    await client.close();
    const count = (method: string) => calls.filter((name) => name === method).length;
    // initialize, initialized, the call; the GET stream; the DELETE: all through the user's fetch.
    assert.deepEqual([count("POST"), count("GET"), count("DELETE")], [3, 1, 1]);
    assert.equal(calls.length, seen.length, "nothing reached the server another way");
  });
});
