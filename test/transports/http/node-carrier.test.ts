/**
 * The node:http carrier behind HttpClientTransport's modern POSTs (the default when no `fetch`
 * is given): JSON and SSE replies, cancellation closing the request, keep-alive reuse, no
 * sockets left after close, https URLs on node:https, and a user's fetch still honoured.
 */
import assert from "node:assert/strict";
import {
  createServer as createHttpServer,
  request as httpRequest,
  type ServerResponse,
} from "node:http";
import { request as httpsRequest } from "node:https";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, it } from "node:test";
import { LocalError } from "../../../src/jsonrpc/errors.js";
import type { JsonObject, JsonRpcMessage } from "../../../src/jsonrpc/types.js";
import { HttpClientTransport } from "../../../src/transports/http/client/client-transport.js";
import { nodeClientFor } from "../../../src/transports/http/client/node-carrier.js";
import { until } from "../../helpers/poll.js";
import {
  type Captured,
  result,
  type ScriptedServer,
  scriptedServer,
  sendJson,
  startSse,
} from "./client-scripted-server.js";

const META = { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } };

let server: ScriptedServer | undefined;
let transport: HttpClientTransport | undefined;

afterEach(async () => {
  await transport?.close();
  await server?.close();
  transport = undefined;
  server = undefined;
});

/** A started transport and what it received. */
function client(url: string, options: ConstructorParameters<typeof HttpClientTransport>[1] = {}) {
  const received: JsonRpcMessage[] = [];
  transport = new HttpClientTransport(url, { flavourCache: new Map(), ...options });
  transport.start({ message: (message) => received.push(message) });
  return { transport, received };
}

function request(id: number, method = "tools/call", params: JsonObject = { name: "echo" }) {
  return { jsonrpc: "2.0" as const, id, method, params: { ...params, ...META } };
}

async function open(script: (request: Captured, res: ServerResponse) => void) {
  server = await scriptedServer(script);
  return { server, ...client(server.url) };
}

/** Client-side TCP sockets of this process and their server ends (both are TCPSocketWrap). */
function tcpSockets(): number {
  return process.getActiveResourcesInfo().filter((name) => name === "TCPSocketWrap").length;
}

describe("node:http carrier", { timeout: 30_000 }, () => {
  it("delivers a JSON reply; the body goes out with Content-Length and the MCP headers", async () => {
    const { server, transport, received } = await open((request, res) =>
      sendJson(res, 200, result(request, { ok: true })),
    );
    await transport.send(request(1));
    assert.deepEqual(received, [{ jsonrpc: "2.0", id: 1, result: { ok: true } }]);
    const sent = server.requests[0]!;
    assert.equal(sent.headers["content-length"], String(Buffer.byteLength(sent.body)));
    assert.equal(sent.headers["mcp-method"], "tools/call");
    assert.equal(sent.headers["mcp-name"], "echo");
    assert.equal(sent.json?.id, 1);
  });

  it("delivers notifications and the reply from an SSE reply, multi-byte text split anywhere", async () => {
    const text = "héllo ✓ 😀";
    const { transport, received } = await open((request, res) => {
      startSse(res);
      const event = Buffer.from(
        `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: text } })}\n\n` +
          `data: ${JSON.stringify(result(request, { text }))}\n\n`,
      );
      // Byte by byte, so UTF-8 sequences and event boundaries fall across chunks.
      let at = 0;
      const next = () => {
        if (at >= event.length) return void res.end();
        res.write(event.subarray(at, at + 1));
        at += 1;
        setImmediate(next);
      };
      next();
    });
    await transport.send(request(2));
    assert.equal(received.length, 2);
    assert.deepEqual((received[0] as { params: JsonObject }).params, { data: text });
    assert.deepEqual(received[1], { jsonrpc: "2.0", id: 2, result: { text } });
  });

  it("cancelling mid-SSE closes the request; the server sees the disconnect", async () => {
    const { server, transport, received } = await open((_request, res) => {
      const write = startSse(res);
      write({ jsonrpc: "2.0", method: "notifications/message", params: { data: "working" } });
      // The reply never comes.
    });
    const pending = transport.send(request(3));
    await until(() => received.length === 1);
    assert.equal(transport.cancel(3, "user gave up"), true);
    await assert.rejects(pending, (error: unknown) => {
      assert.ok(error instanceof LocalError);
      assert.equal(error.kind, "aborted");
      return true;
    });
    await server.requests[0]!.clientGone;
    assert.equal(server.requests.length, 1, "nothing else is sent on modern HTTP");
  });

  it("keeps the connection alive across requests, JSON and SSE alike", async () => {
    let connections = 0;
    const http = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const id = JSON.parse(Buffer.concat(chunks).toString("utf8")).id;
        const reply = JSON.stringify({ jsonrpc: "2.0", id, result: {} });
        if (id % 2 === 0) {
          res.writeHead(200, { "Content-Type": "text/event-stream" });
          res.end(`data: ${reply}\n\n`);
        } else {
          res.writeHead(200, { "Content-Type": "application/json" }).end(reply);
        }
      });
    });
    http.on("connection", () => connections++);
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = http.address() as AddressInfo;
      const { transport, received } = client(`http://127.0.0.1:${port}/mcp`);
      for (let id = 1; id <= 6; id++) await transport.send(request(id));
      assert.equal(received.length, 6);
      assert.equal(connections, 1);
      await transport.close();
    } finally {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });

  it("destroys the agent's sockets on close (nothing left in getActiveResourcesInfo)", async () => {
    const { transport } = await open((request, res) => sendJson(res, 200, result(request, {})));
    await Promise.all([1, 2, 3].map((id) => transport.send(request(id))));
    assert.ok(tcpSockets() >= 2, "kept-alive sockets exist before close");
    await transport.close();
    // Node's server keeps idle connections 5 s: gone sooner means the client closed them.
    await until(() => tcpSockets() === 0, "no TCP socket left", 3000);
  });

  it("retries once on a fresh connection when a kept-alive socket was reset before any answer", async () => {
    let connections = 0;
    const sockets = new Set<Socket>();
    const raw: Server = createServer((socket: Socket) => {
      sockets.add(socket);
      const index = ++connections;
      let requests = 0;
      let pending = Buffer.alloc(0);
      socket.on("data", (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        const end = pending.indexOf("\r\n\r\n");
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(pending.toString("latin1"))?.[1]);
        if (pending.length < end + 4 + length) return;
        const body = pending.subarray(end + 4, end + 4 + length).toString("utf8");
        pending = pending.subarray(end + 4 + length);
        requests += 1;
        // The first connection answers once, then resets: a keep-alive race, as if it timed out.
        if (index === 1 && requests === 2) return void socket.resetAndDestroy();
        const reply = JSON.stringify({
          jsonrpc: "2.0",
          id: JSON.parse(body).id,
          result: { connection: index },
        });
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(reply)}\r\n\r\n${reply}`,
        );
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = raw.address() as AddressInfo;
      const { transport, received } = client(`http://127.0.0.1:${port}/mcp`);
      await transport.send(request(1));
      await transport.send(request(2));
      assert.deepEqual(
        received.map((m) => (m as { result: JsonObject }).result.connection),
        [1, 2],
      );
      await transport.close();
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    }
  });

  it("takes node:https for https: URLs and node:http otherwise", () => {
    assert.equal(nodeClientFor(new URL("https://example.test/mcp")).request, httpsRequest);
    assert.equal(nodeClientFor(new URL("http://example.test/mcp")).request, httpRequest);
  });

  it("a user fetch, when given, carries every modern POST instead", async () => {
    server = await scriptedServer((request, res) => {
      if (request.json?.id === undefined) res.writeHead(202).end();
      else sendJson(res, 200, result(request, {}));
    });
    const calls: string[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      calls.push(String(init?.method));
      return fetch(input, init);
    };
    const { transport, received } = client(server.url, { fetch: recordingFetch });
    await transport.send(request(1));
    await transport.send({ jsonrpc: "2.0", method: "notifications/initialized", params: META });
    assert.deepEqual(calls, ["POST", "POST"]);
    assert.equal(received.length, 1);
  });
});
