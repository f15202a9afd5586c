/**
 * The test load balancer itself (test/helpers/nginx.ts), against three plain HTTP upstreams:
 * round-robin with no affinity even for one session, MCP's headers passed both ways, SSE
 * streamed as it is written, and a POST routed around an upstream that is gone.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type Nginx, startNginx } from "../helpers/nginx.js";

const HEADERS = ["mcp-session-id", "last-event-id", "mcp-protocol-version", "mcp-method"];

function upstream(index: number): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.url === "/sse") {
      response.writeHead(200, { "content-type": "text/event-stream" });
      // One event, then the stream stays open until the client leaves.
      response.write(`id: ${index}-1\ndata: first\n\n`);
      return;
    }
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    request.on("end", () => {
      const seen = Object.fromEntries(HEADERS.map((name) => [name, request.headers[name]]));
      response.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-42" });
      response.end(JSON.stringify({ index, seen, body }));
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

describe("the test nginx in front of three upstreams", () => {
  let servers: Server[] = [];
  let nginx: Nginx;

  before(async () => {
    servers = await Promise.all([0, 1, 2].map(upstream));
    nginx = await startNginx(
      "nginx helper test",
      servers.map((server) => (server.address() as AddressInfo).port),
    );
  });

  after(async () => {
    await nginx?.stop();
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
  });

  async function post(): Promise<{ index: number; seen: Record<string, string>; body: string }> {
    const response = await fetch(`${nginx.origin}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "Mcp-Session-Id": "s-42",
        "Last-Event-ID": "7",
        "MCP-Protocol-Version": "2025-11-25",
        "Mcp-Method": "tools/call",
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    assert.equal(response.status, 200, await nginx.errorLog());
    assert.equal(response.headers.get("mcp-session-id"), "s-42");
    return (await response.json()) as { index: number; seen: Record<string, string>; body: string };
  }

  it("spreads one session's requests over every upstream and passes MCP headers both ways", async () => {
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await post());
    const counts = [0, 0, 0];
    for (const answer of answers) counts[answer.index]! += 1;
    assert.deepEqual(counts, [2, 2, 2]);
    assert.deepEqual(answers[0]!.seen, {
      "mcp-session-id": "s-42",
      "last-event-id": "7",
      "mcp-protocol-version": "2025-11-25",
      "mcp-method": "tools/call",
    });
    assert.equal(answers[0]!.body, '{"jsonrpc":"2.0","id":1,"method":"ping"}');
  });

  it("streams an SSE event while the upstream keeps the stream open", async () => {
    const controller = new AbortController();
    const response = await fetch(`${nginx.origin}/sse`, { signal: controller.signal });
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    assert.match(new TextDecoder().decode(value), /data: first/);
    controller.abort();
  });

  it("routes POSTs around an upstream that refuses connections", async () => {
    const dead = servers[1]!;
    dead.closeAllConnections();
    await new Promise((resolve) => dead.close(resolve));
    const seen = new Set<number>();
    for (let i = 0; i < 6; i++) seen.add((await post()).index);
    assert.deepEqual([...seen].sort(), [0, 2]);
  });
});
