/**
 * A client that opens an SSE stream and never reads it cannot make the server hold every later
 * event: once what waits for it passes `maxStreamBacklogBytes`, a listen stream ends with its
 * completion result (the handler unsubscribes), a legacy stream's connection closes (the
 * session lives on), an HTTP+SSE session ends; the server logs it and serves everyone else.
 * Driven by event counts over raw TCP on 127.0.0.1, never by the clock.
 */
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { describe, it } from "node:test";
import { McpServer } from "../../../src/server/index.js";
import type { InMemoryEventSource } from "../../../src/server/subscriptions.js";
import { serveHttp } from "../../../src/transports/http/node-adapter.js";
import { waitFor } from "../../helpers/poll.js";
import { json, mcpHeaders, meta, post, request } from "./http-helpers.js";
import { call, RawSession } from "./legacy-helpers.js";

const BOUND = 256 * 1024;
/** Each event carries this long a uri: about 32 KB on the wire. */
const BIG_URI = `mem://big/${"x".repeat(32 * 1024)}`;
const EVENT_BYTES = BIG_URI.length + 200;
/** Far more than kernel socket buffers and the bound together can absorb (~64 MB). */
const MAX_EVENTS = 2_000;

/** Set when the "flood" tool's signal fired (the server stopped it). */
const flood = { stopped: false };

function startServer(lines: string[]) {
  const mcp = new McpServer({
    serverInfo: { name: "backlog", version: "1" },
    onError: (error) => lines.push(error.message),
    peerLogIntervalMs: 0,
  });
  // A resource, so that the server offers resource subscriptions.
  mcp.resource({ uri: "mem://note", name: "note" }, (uri) => [{ uri, text: "n" }]);
  mcp.tool({ name: "echo", inputSchema: { type: "object" } }, (args) => String(args.text));
  // Sends MAX_EVENTS large progress notifications without waiting for the reader, then waits.
  mcp.tool({ name: "flood", inputSchema: { type: "object" } }, async (_args, context) => {
    flood.stopped = false;
    for (let i = 0; i < MAX_EVENTS; i++) void context.progress(i, MAX_EVENTS, BIG_URI);
    const { signal } = context;
    if (!signal.aborted) await new Promise((resolve) => signal.addEventListener("abort", resolve));
    flood.stopped = true;
    return "stopped";
  });
  return mcp;
}

/** Sends one raw HTTP/1.1 request and then never reads: the socket stays paused. */
function sendAndNeverRead(url: string, head: string, body = ""): Promise<Socket> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname, () => {
      socket.pause();
      socket.write(head + body);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

function requestHead(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string,
  /** The request target as sent, unnormalised (default: the URL's path and query). */
  requestTarget?: string,
): string {
  const target = new URL(url);
  const line = `${method} ${requestTarget ?? `${target.pathname}${target.search}`} HTTP/1.1`;
  const lines = [line, `Host: ${target.host}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== "") lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/**
 * Reads what the socket has and will get until `done` says the text is complete; then the
 * socket is paused again (in the same tick: nothing more is read).
 */
function readUntil(socket: Socket, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (done(text)) {
        socket.pause();
        socket.off("data", onData);
        resolve(text);
      }
    };
    socket.on("data", onData);
    socket.once("error", reject);
    socket.once("close", () => resolve(text));
    socket.resume();
  });
}

/** Lets queued writes reach the sockets (a turn of the event loop), then yields. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The server-side sockets, to measure what the server holds for its clients: what node keeps
 * in user space for a socket is its writableLength.
 */
function serverSockets(served: { server: import("node:http").Server }): Socket[] {
  const sockets: Socket[] = [];
  served.server.on("connection", (socket) => sockets.push(socket));
  return sockets;
}

const unread = (lines: string[]) => lines.filter((line) => line.includes("not reading"));

describe("SSE streams whose client does not read are bounded", () => {
  // "/./mcp" is the same endpoint, but not the literal path the node:http fast path takes: it
  // goes through the web-standard core (an SseStream body written out by writeResponse).
  for (const [door, requestTarget] of [
    ["node:http fast path", "/mcp"],
    ["web-standard core", "/./mcp"],
  ] as const) {
    it(`modern subscriptions/listen (${door}): ends with its completion result, the handler unsubscribes`, async () => {
      const lines: string[] = [];
      const mcp = startServer(lines);
      const events = mcp.subscriptionEvents as InMemoryEventSource;
      const baseline = events.listenerCount;
      const served = await serveHttp(mcp, { maxStreamBacklogBytes: BOUND, keepAliveMs: 0 });
      const sockets = serverSockets(served);
      let raw: Socket | undefined;
      try {
        const listen = request(
          "subscriptions/listen",
          { notifications: { resourceSubscriptions: [BIG_URI] } },
          41,
        );
        const body = JSON.stringify(listen);
        raw = await sendAndNeverRead(
          served.url,
          requestHead("POST", served.url, mcpHeaders(listen), body, requestTarget),
          body,
        );
        await waitFor("the listen stream's listener", async () =>
          events.listenerCount === baseline + 1 ? true : undefined,
        );

        let sent = 0;
        while (unread(lines).length === 0 && sent < MAX_EVENTS) {
          mcp.resourceUpdated(BIG_URI);
          sent++;
          await turn();
        }
        assert.equal(unread(lines).length, 1, `no overflow after ${sent} events of ~32 KB`);
        // The subscription is gone: later events cost this client nothing.
        assert.equal(events.listenerCount, baseline);
        const held = () => Math.max(...sockets.map((socket) => socket.writableLength));
        assert.ok(held() <= BOUND + 2 * EVENT_BYTES, `server holds ${held()} bytes`);
        for (let i = 0; i < 200; i++) mcp.resourceUpdated(BIG_URI);
        await turn();
        assert.ok(held() <= BOUND + 2 * EVENT_BYTES, `server holds ${held()} bytes`);
        assert.equal(unread(lines).length, 1, "logged once");

        // Everyone else is served as usual.
        const other = await post(
          served.url,
          request("tools/call", { name: "echo", arguments: { text: "hi" } }, 1),
        );
        assert.equal((await json(other)).result.content[0].text, "hi");

        // A client that reads after all finds the graceful end: the completion result, last.
        const text = await readUntil(raw, (so_far) => so_far.endsWith("0\r\n\r\n"));
        const dataLines = text.split("\n").filter((line) => line.startsWith("data: "));
        const cancelled = JSON.parse(dataLines.at(-2)!.slice(6));
        assert.equal(cancelled.method, "notifications/cancelled");
        assert.equal(cancelled.params.requestId, 41);
        const last = JSON.parse(dataLines.at(-1)!.slice(6));
        assert.deepEqual(last, {
          jsonrpc: "2.0",
          id: 41,
          result: {
            resultType: "complete",
            _meta: { "io.modelcontextprotocol/subscriptionId": 41 },
          },
        });
      } finally {
        raw?.destroy();
        await served.close();
      }
    });
  }

  it("modern tools/call streaming progress: ends with an error reply, the handler is stopped", async () => {
    const lines: string[] = [];
    const served = await serveHttp(startServer(lines), {
      maxStreamBacklogBytes: BOUND,
      keepAliveMs: 0,
    });
    const sockets = serverSockets(served);
    let raw: Socket | undefined;
    try {
      const flooding = {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "flood", arguments: {}, _meta: { ...meta(), progressToken: "p" } },
      };
      const body = JSON.stringify(flooding);
      raw = await sendAndNeverRead(
        served.url,
        requestHead("POST", served.url, mcpHeaders(flooding), body),
        body,
      );
      await waitFor("the flood's first unread line", async () =>
        unread(lines).length > 0 ? true : undefined,
      );
      await waitFor("the flood to stop", async () => (flood.stopped ? true : undefined));
      assert.equal(unread(lines).length, 1);
      const held = Math.max(...sockets.map((socket) => socket.writableLength));
      assert.ok(held <= BOUND + 2 * EVENT_BYTES, `server holds ${held} bytes`);
      const text = await readUntil(raw, (so_far) => so_far.endsWith("0\r\n\r\n"));
      const dataLines = text.split("\n").filter((line) => line.startsWith("data: "));
      assert.ok(dataLines.length < 100, `${dataLines.length} events were sent`);
      const last = JSON.parse(dataLines.at(-1)!.slice(6));
      assert.equal(last.id, 7);
      assert.equal(last.error.code, -32603);
      assert.match(last.error.message, /did not read it/);
    } finally {
      raw?.destroy();
      await served.close();
    }
  });

  it("legacy GET stream: its connection closes, the session lives on and opens a new stream", async () => {
    const lines: string[] = [];
    const mcp = startServer(lines);
    const served = await serveHttp(mcp, { maxStreamBacklogBytes: BOUND, keepAliveMs: 0 });
    const sockets = serverSockets(served);
    let raw: Socket | undefined;
    try {
      const session = new RawSession(served.url);
      await session.open();
      const subscribed = await session.post({
        jsonrpc: "2.0",
        id: 1,
        method: "resources/subscribe",
        params: { uri: BIG_URI },
      });
      assert.equal((await json(subscribed)).result !== undefined, true);
      const headers: Record<string, string> = {};
      session
        .headers({ Accept: "text/event-stream", "Content-Type": null })
        .forEach((value, name) => {
          headers[name] = value;
        });
      raw = await sendAndNeverRead(served.url, requestHead("GET", served.url, headers, ""));
      // Only the response head is read: from then on the stream is open and nobody reads it.
      const head = await readUntil(raw, (text) => text.includes("\r\n\r\n"));
      assert.match(head, /^HTTP\/1.1 200/);
      let sent = 0;
      while (unread(lines).length === 0 && sent < MAX_EVENTS) {
        mcp.resourceUpdated(BIG_URI);
        sent++;
        await turn();
      }
      assert.equal(unread(lines).length, 1, `no overflow after ${sent} events of ~32 KB`);
      const held = () => Math.max(...sockets.map((socket) => socket.writableLength));
      for (let i = 0; i < 200; i++) mcp.resourceUpdated(BIG_URI);
      await turn();
      assert.ok(held() <= BOUND + 2 * EVENT_BYTES, `server holds ${held()} bytes`);

      // The session is fine: requests work, and a new GET stream opens and carries events.
      const echoed = await session.post(call("echo", { text: "still here" }, 2));
      assert.equal((await json(echoed)).result.content[0].text, "still here");
      const stream = await session.get();
      assert.equal(stream.status, 200);
      await stream.body?.cancel();
    } finally {
      raw?.destroy();
      await served.close();
    }
  });

  it("HTTP+SSE (2024-11-05): the session ends, other sessions are served", async () => {
    const lines: string[] = [];
    const mcp = startServer(lines);
    const served = await serveHttp(mcp, {
      maxStreamBacklogBytes: BOUND,
      keepAliveMs: 0,
      legacySse: true,
    });
    const sockets = serverSockets(served);
    let raw: Socket | undefined;
    try {
      const sseUrl = new URL("/sse", served.url).href;
      raw = await sendAndNeverRead(
        sseUrl,
        requestHead("GET", sseUrl, { Accept: "text/event-stream" }, ""),
      );
      // The endpoint event is the only thing read: the session id it names.
      const opening = await readUntil(raw, (text) => /data: \S+sessionId=\S+\n\n/.test(text));
      const endpoint = /data: (\S+)\n/.exec(opening)![1]!;
      const target = new URL(endpoint, served.url);
      const send = (body: unknown) =>
        fetch(target, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(body),
        }).then(async (response) => {
          await response.body?.cancel();
          return response.status;
        });
      const init = {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2024-11-05",
          capabilities: {},
          clientInfo: { name: "r", version: "0" },
        },
      };
      assert.equal(await send(init), 202);
      assert.equal(await send({ jsonrpc: "2.0", method: "notifications/initialized" }), 202);
      assert.equal(
        await send({
          jsonrpc: "2.0",
          id: 1,
          method: "resources/subscribe",
          params: { uri: BIG_URI },
        }),
        202,
      );
      let sent = 0;
      while (unread(lines).length === 0 && sent < MAX_EVENTS) {
        mcp.resourceUpdated(BIG_URI);
        sent++;
        await turn();
      }
      assert.equal(unread(lines).length, 1, `no overflow after ${sent} events of ~32 KB`);
      const held = () => Math.max(...sockets.map((socket) => socket.writableLength));
      for (let i = 0; i < 200; i++) mcp.resourceUpdated(BIG_URI);
      await turn();
      assert.ok(held() <= BOUND + 2 * EVENT_BYTES, `server holds ${held()} bytes`);
      // That session is over; a well-behaved client is served.
      assert.equal(
        await waitFor("the session to be over", async () =>
          (await send(init)) === 404 ? 404 : undefined,
        ),
        404,
      );
      const other = new RawSession(served.url);
      await other.open();
    } finally {
      raw?.destroy();
      await served.close();
    }
  });
});
