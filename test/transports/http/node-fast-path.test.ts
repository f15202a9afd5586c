/**
 * The node:http fast path (modern POSTs served without web Request/Response objects) answers
 * exactly as the web-standard core does: the same handler is served through both doors (a
 * listener on the handler itself takes the fast path; one on a plain wrapper of it cannot), and
 * the raw HTTP replies are compared byte for byte, Date aside.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { createNodeListener } from "../../../src/transports/http/node-adapter.js";
import {
  createHttpHandler,
  endpointOf,
  type HttpHandler,
  type HttpHandlerOptions,
} from "../../../src/transports/http/server.js";
import {
  buildTestServer,
  mcpHeaders,
  type Probe,
  request,
  startTestServer,
} from "./http-helpers.js";

interface Doors {
  fastPort: number;
  webPort: number;
  handler: HttpHandler;
  probe: Probe;
  close(): Promise<void>;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}

/** One handler behind two node:http servers: the fast path, and the web core only. */
async function openDoors(options: HttpHandlerOptions): Promise<Doors> {
  const { server, probe } = buildTestServer();
  const handler = createHttpHandler(server, options);
  // Not made by createHttpHandler, so the adapter cannot reach its endpoint: web core only.
  const wrapped: HttpHandler = {
    handle: (incoming) => handler.handle(incoming),
    extraPaths: handler.extraPaths,
    close: () => handler.close(),
  };
  const fast = createServer(createNodeListener(handler));
  const web = createServer(createNodeListener(wrapped));
  const [fastPort, webPort] = await Promise.all([listen(fast), listen(web)]);
  return {
    fastPort,
    webPort,
    handler,
    probe,
    close: async () => {
      await handler.close();
      for (const server of [fast, web]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

/** Sends raw request text on a fresh connection; resolves with everything read until close. */
function rawExchange(port: number, text: string | Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks)));
    socket.write(text);
  });
}

/** Status line and header lines (Date dropped), and the body with chunked framing removed. */
function normalise(raw: Buffer): { head: string[]; body: string } {
  const text = raw.toString("latin1");
  const split = text.indexOf("\r\n\r\n");
  assert.ok(split > 0, `no complete response head in ${JSON.stringify(text)}`);
  const head = text
    .slice(0, split)
    .split("\r\n")
    .filter((line) => !/^date:/i.test(line))
    // Session ids are random; that one is present matters, not its value.
    .map((line) => line.replace(/^(mcp-session-id:).*$/i, "$1 <id>"));
  let body = text.slice(split + 4);
  if (head.some((line) => /^transfer-encoding:\s*chunked$/i.test(line))) {
    let decoded = "";
    for (;;) {
      const lineEnd = body.indexOf("\r\n");
      const size = Number.parseInt(body.slice(0, lineEnd), 16);
      if (!(size > 0)) break;
      decoded += body.slice(lineEnd + 2, lineEnd + 2 + size);
      body = body.slice(lineEnd + 2 + size + 2);
    }
    body = decoded;
  }
  return { head, body: Buffer.from(body, "latin1").toString("utf8") };
}

/** A raw POST to /mcp; `headers` override the conforming ones (null removes one). */
function rawPost(
  body: string,
  headers: Record<string, string | null> = {},
  forHeaders: Record<string, unknown> = safeParse(body),
): string {
  const merged: Record<string, string> = { Host: "localhost", Connection: "close" };
  for (const [name, value] of Object.entries(mcpHeaders(forHeaders))) merged[name] = value;
  merged["Content-Length"] = String(Buffer.byteLength(body));
  for (const [name, value] of Object.entries(headers)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  const lines = Object.entries(merged).map(([name, value]) => `${name}: ${value}\r\n`);
  return `POST /mcp HTTP/1.1\r\n${lines.join("")}\r\n${body}`;
}

function safeParse(body: string): Record<string, unknown> {
  try {
    const value = JSON.parse(body);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

const echo = JSON.stringify(request("tools/call", { name: "echo", arguments: { text: "hé" } }));
const legacyInitialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "t", version: "0" },
  },
});

/** Requests every door must answer identically: label → raw request text. */
const MATRIX: Record<string, string> = {
  "a tool call": rawPost(echo),
  "tools/list under a string id": rawPost(JSON.stringify(request("tools/list", {}, "abc"))),
  "a notification (202)": rawPost(
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/roots/list_changed" }),
  ),
  "a query string on the endpoint": rawPost(echo).replace("POST /mcp ", "POST /mcp?x=1 "),
  "Accept without SSE (406)": rawPost(echo, { Accept: "application/json" }),
  "a text/plain body (415)": rawPost(echo, { "Content-Type": "text/plain" }),
  "a declared body over the limit (413)": rawPost(
    JSON.stringify(request("tools/call", { name: "echo", arguments: { text: "x".repeat(5000) } })),
  ),
  "malformed JSON (400, -32700)": rawPost('{"jsonrpc": "2.0", "id": 1,', {}, request("tools/list")),
  "a POSTed response (400)": rawPost('{"jsonrpc":"2.0","id":1,"result":{}}'),
  "a batch (400)": rawPost("[]", {}, request("tools/list")),
  "initialize with modern _meta (404)": rawPost(JSON.stringify(request("initialize"))),
  "an unknown method (404)": rawPost(JSON.stringify(request("nope/nothing"))),
  "Mcp-Method disagreeing with the body (400)": rawPost(echo, { "Mcp-Method": "tools/list" }),
  "Mcp-Name missing (400)": rawPost(echo, { "Mcp-Name": null }),
  "an unsupported version (400)": rawPost(echo, { "MCP-Protocol-Version": "2099-01-01" }),
  "a foreign Host (403)": rawPost(echo, { Host: "evil.example" }),
  "a foreign Origin (403)": rawPost(echo, { Origin: "https://evil.example" }),
  "a loopback Origin (CORS headers)": rawPost(echo, { Origin: "http://localhost:5173" }),
  "a doubled Host header (403)": rawPost(echo).replace(
    "Host: localhost\r\n",
    "Host: localhost\r\nHost: evil.example\r\n",
  ),
  "legacy initialize without a session (handed to the legacy handler)": rawPost(legacyInitialize, {
    "MCP-Protocol-Version": null,
    "Mcp-Method": null,
  }),
};

describe("node:http fast path: the same answers as the web-standard core", () => {
  let doors: Doors;
  before(async () => {
    doors = await openDoors({ maxBodyBytes: 2048, cors: true });
  });
  after(() => doors.close());

  for (const [label, text] of Object.entries(MATRIX)) {
    it(label, async () => {
      const fast = normalise(await rawExchange(doors.fastPort, text));
      const web = normalise(await rawExchange(doors.webPort, text));
      assert.deepEqual(fast, web);
      const expected = /\((\d{3})/.exec(label)?.[1] ?? "200";
      assert.match(fast.head[0]!, new RegExp(`^HTTP/1\\.1 ${expected} `));
    });
  }

  it("SSE replies carry the same headers and events", async () => {
    const sse = await openDoors({ responseMode: "sse", keepAliveMs: 0 });
    try {
      const fast = normalise(await rawExchange(sse.fastPort, rawPost(echo)));
      const web = normalise(await rawExchange(sse.webPort, rawPost(echo)));
      assert.deepEqual(fast, web);
      assert.ok(fast.head.includes("content-type: text/event-stream"));
      const data = fast.body.split("\n").find((line) => line.startsWith("data: "));
      assert.equal(JSON.parse(data!.slice(6)).result.content[0].text, "hé");
    } finally {
      await sse.close();
    }
  });
});

describe("node:http fast path: limits and disconnects", () => {
  it("answers a declared oversized body with 413 before the body is sent, and closes", async () => {
    const served = await startTestServer({ maxBodyBytes: 1024 });
    try {
      const { port } = new URL(served.url);
      const head = rawPost(echo, { "Content-Length": String(64 * 1024 * 1024) }).split(
        "\r\n\r\n",
      )[0];
      // Only the head goes out: the reply must come without the server waiting for 64 MiB.
      const reply = normalise(await rawExchange(Number(port), `${head}\r\n\r\n`));
      assert.equal(reply.head[0], "HTTP/1.1 413 Payload Too Large");
      assert.ok(reply.head.some((line) => /^connection: close$/i.test(line)));
      assert.match(JSON.parse(reply.body).error.message, /limit is 1024 bytes/);
    } finally {
      await served.close();
    }
  });

  it("a client that leaves mid-handler cancels it, and nothing of the request is kept", async () => {
    const served = await startTestServer();
    try {
      const endpoint = endpointOf(served.handler);
      assert.ok(endpoint, "serveHttp's handler has the fast path's endpoint");
      const { port } = new URL(served.url);
      const socket = connect(Number(port), "127.0.0.1");
      socket.on("error", () => {});
      const received: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => received.push(chunk));
      socket.write(rawPost(JSON.stringify(request("tools/call", { name: "hold" }))));
      await served.probe.holdStarted;
      assert.equal(endpoint.transport.openExchanges, 1);
      socket.destroy();
      const reason = await served.probe.holdAborted;
      assert.ok(reason instanceof Error);
      assert.match(String((reason as Error).message), /client closed the response stream/);
      const deadline = Date.now() + 10_000;
      while (
        endpoint.transport.openExchanges > 0 ||
        endpoint.connection.session.activeRequests > 0
      ) {
        assert.ok(Date.now() < deadline, "the exchange and the session entry are released");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(Buffer.concat(received).length, 0, "nothing was written to the gone client");
    } finally {
      await served.close();
    }
  });

  it("an authentication hook sees the request's method, URL and headers", async () => {
    const seen: string[] = [];
    const served = await startTestServer({
      authenticate(incoming) {
        seen.push(`${incoming.method} ${new URL(incoming.url).pathname}`);
        seen.push(incoming.headers.get("authorization") ?? "none");
        return { subject: "bob" };
      },
    });
    try {
      const { port } = new URL(served.url);
      const body = JSON.stringify(request("tools/call", { name: "whoami" }));
      const reply = normalise(
        await rawExchange(Number(port), rawPost(body, { Authorization: "Bearer t" })),
      );
      assert.equal(reply.head[0], "HTTP/1.1 200 OK");
      assert.deepEqual(JSON.parse(JSON.parse(reply.body).result.content[0].text), {
        subject: "bob",
      });
      assert.deepEqual(seen, ["POST /mcp", "Bearer t"]);
    } finally {
      await served.close();
    }
  });
});

/** A raw legacy POST in a session; `headers` override the conforming ones (null removes one). */
function legacyPost(
  body: unknown,
  sessionId: string,
  headers: Record<string, string | null> = {},
): string {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const merged: Record<string, string> = {
    Host: "localhost",
    Connection: "close",
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "Mcp-Session-Id": sessionId,
    "MCP-Protocol-Version": "2025-11-25",
    "Content-Length": String(Buffer.byteLength(text)),
  };
  for (const [name, value] of Object.entries(headers)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  const lines = Object.entries(merged).map(([name, value]) => `${name}: ${value}\r\n`);
  return `POST /mcp HTTP/1.1\r\n${lines.join("")}\r\n${text}`;
}

/** Opens a legacy session through a door (initialize, then initialized); its id. */
async function openLegacySession(port: number): Promise<string> {
  const headers = { "MCP-Protocol-Version": null, "Mcp-Method": null };
  const raw = await rawExchange(port, rawPost(legacyInitialize, headers));
  assert.equal(normalise(raw).head[0], "HTTP/1.1 200 OK");
  const id = /^mcp-session-id: (.+)$/im.exec(raw.toString("latin1"))?.[1]?.trim();
  assert.ok(id, "initialize names a session");
  const initialized = normalise(
    await rawExchange(
      port,
      legacyPost({ jsonrpc: "2.0", method: "notifications/initialized" }, id),
    ),
  );
  assert.equal(initialized.head[0], "HTTP/1.1 202 Accepted");
  return id;
}

/** SSE event ids name a random stream: that an id is there and its sequence number matter. */
function withoutStreamIds(reply: { head: string[]; body: string }) {
  return { head: reply.head, body: reply.body.replace(/^id: [^:\n]+:/gm, "id: <stream>:") };
}

const legacyCall = (id: number | string, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

describe("node:http fast path: legacy session POSTs answer as the web-standard core does", () => {
  let doors: Doors;
  let session: string;
  let served: number;
  before(async () => {
    doors = await openDoors({ maxBodyBytes: 2048, cors: true });
    session = await openLegacySession(doors.webPort);
    // Counted, not replaced: the fast path's own entry into the legacy handler.
    const legacy = endpointOf(doors.handler)!.legacy!;
    const postInSession = legacy.postInSession.bind(legacy);
    served = 0;
    legacy.postInSession = (...args) => {
      served++;
      return postInSession(...args);
    };
  });
  after(() => doors.close());

  const cases: Record<string, () => string> = {
    "a tool call": () => legacyPost(legacyCall(7, "echo", { text: "hé" }), session),
    "a tool call without MCP-Protocol-Version": () =>
      legacyPost(legacyCall(8, "echo", { text: "x" }), session, { "MCP-Protocol-Version": null }),
    "an unknown tool (200, error result)": () => legacyPost(legacyCall(9, "nope"), session),
    "an unknown method (200, -32601)": () =>
      legacyPost({ jsonrpc: "2.0", id: 10, method: "nope/nothing" }, session),
    "a notification (202)": () =>
      legacyPost({ jsonrpc: "2.0", method: "notifications/roots/list_changed" }, session),
    "an unknown session (404)": () => legacyPost(legacyCall(11, "echo"), "not-a-session"),
    "an empty session id (400)": () => legacyPost(legacyCall(12, "echo"), " "),
    "an unsupported version (400)": () =>
      legacyPost(legacyCall(13, "echo"), session, { "MCP-Protocol-Version": "2099-01-01" }),
    "a version other than the negotiated one (400)": () =>
      legacyPost(legacyCall(14, "echo"), session, { "MCP-Protocol-Version": "2025-03-26" }),
    "a second initialize in the session (400)": () =>
      legacyPost(legacyInitialize, session, { "MCP-Protocol-Version": null }),
    "malformed JSON (400, -32700)": () => legacyPost('{"jsonrpc": "2.0", "id": 1,', session),
    "a text/plain body (415)": () =>
      legacyPost(legacyCall(15, "echo"), session, { "Content-Type": "text/plain" }),
    "a foreign Host (403)": () =>
      legacyPost(legacyCall(16, "echo"), session, { Host: "evil.example" }),
    "a foreign Origin (403)": () =>
      legacyPost(legacyCall(17, "echo"), session, { Origin: "https://evil.example" }),
    "a loopback Origin (CORS headers)": () =>
      legacyPost(legacyCall(18, "echo", { text: "c" }), session, {
        Origin: "http://localhost:5173",
      }),
    "progress makes an SSE stream with event ids": () =>
      legacyPost(
        {
          ...legacyCall(19, "steps"),
          params: { name: "steps", arguments: {}, _meta: { progressToken: 1 } },
        },
        session,
      ),
  };

  for (const [label, text] of Object.entries(cases)) {
    it(label, async () => {
      const before = served;
      const fast = withoutStreamIds(normalise(await rawExchange(doors.fastPort, text())));
      const web = withoutStreamIds(normalise(await rawExchange(doors.webPort, text())));
      assert.deepEqual(fast, web);
      const expected = /\((\d{3})/.exec(label)?.[1] ?? "200";
      assert.match(fast.head[0]!, new RegExp(`^HTTP/1\\.1 ${expected} `));
      // Refused before the body is read (Host, Origin, media type, JSON): not the handler's.
      const reachesHandler = !/\((403|415)\)|-32700/.test(label);
      assert.equal(served - before, reachesHandler ? 1 : 0, "served by the fast path");
    });
  }

  it("a stream written by the fast path resumes with Last-Event-ID from the web core", async () => {
    const body = {
      ...legacyCall(20, "steps"),
      params: { name: "steps", arguments: {}, _meta: { progressToken: 2 } },
    };
    const first = normalise(await rawExchange(doors.fastPort, legacyPost(body, session)));
    const ids = [...first.body.matchAll(/^id: (.+)$/gm)].map((match) => match[1]!);
    assert.ok(ids.length >= 3, `priming, progress and reply events carry ids: ${first.body}`);
    const resume = [
      "GET /mcp HTTP/1.1",
      "Host: localhost",
      "Connection: close",
      "Accept: text/event-stream",
      `Mcp-Session-Id: ${session}`,
      "MCP-Protocol-Version: 2025-11-25",
      `Last-Event-ID: ${ids[1]}`,
      "",
      "",
    ].join("\r\n");
    const resumed = normalise(await rawExchange(doors.fastPort, resume));
    assert.equal(resumed.head[0], "HTTP/1.1 200 OK");
    const replayed = [...resumed.body.matchAll(/^id: (.+)$/gm)].map((match) => match[1]!);
    assert.deepEqual(replayed, ids.slice(2), "exactly the events after the cursor");
    assert.match(resumed.body, /"result"/);
  });
});
