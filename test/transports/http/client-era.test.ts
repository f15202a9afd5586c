import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { afterEach, describe, it } from "node:test";
import { McpClient } from "../../../src/client/index.js";
import { LocalError } from "../../../src/jsonrpc/errors.js";
import { HttpClientTransport } from "../../../src/transports/http/client/client-transport.js";
import type { HttpFlavour } from "../../../src/transports/http/client/era.js";
import { HttpStatusError } from "../../../src/transports/http/client/era.js";
import { until } from "../../helpers/poll.js";
import {
  type Captured,
  DISCOVER_RESULT,
  INITIALIZE_RESULT,
  result,
  rpcError,
  type ScriptedServer,
  scriptedServer,
  sendJson,
  startSse,
} from "./client-scripted-server.js";

const clientInfo = { name: "era-test", version: "1.0.0" };
const TOOL_RESULT = { content: [{ type: "text", text: "done" }] };

let server: ScriptedServer | undefined;
let client: McpClient | undefined;
const warnings: string[] = [];

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function connect(
  script: (request: Captured, res: ServerResponse) => void | Promise<void>,
  options: { protocolVersion?: string; cache?: Map<string, HttpFlavour> } = {},
) {
  server ??= await scriptedServer(script);
  const transport = new HttpClientTransport(server.url, {
    flavourCache: options.cache ?? new Map(),
    reconnectDelayMs: 50,
    onWarning: (message) => warnings.push(message),
  });
  client = new McpClient({ clientInfo, protocolVersion: options.protocolVersion });
  await client.connect(transport);
  return { server, client, transport };
}

/** A 2025-11-25 Streamable HTTP server: plain 400 to anything before initialize. */
function legacyScript(
  onRequest?: (request: Captured, res: ServerResponse) => boolean,
  sessionId = "session-1",
) {
  return (request: Captured, res: ServerResponse) => {
    if (onRequest?.(request, res)) return;
    if (request.method === "GET") return void res.writeHead(405).end();
    if (request.method === "DELETE") return void res.writeHead(200).end();
    const method = request.json?.method;
    if (method === "initialize") {
      return sendJson(res, 200, result(request, INITIALIZE_RESULT), {
        "Mcp-Session-Id": sessionId,
      });
    }
    if (request.headers["mcp-session-id"] !== sessionId) {
      res.writeHead(400, { "Content-Type": "text/plain" }).end("Bad Request: no valid session");
      return;
    }
    if (!("id" in (request.json ?? {}))) return void res.writeHead(202).end();
    if (method === "tools/call") return sendJson(res, 200, result(request, TOOL_RESULT));
    return sendJson(res, 200, result(request, {}));
  };
}

describe("era detection over HTTP", () => {
  it("a 200 to server/discover means modern; the flavour is cached per endpoint", async () => {
    const cache = new Map<string, HttpFlavour>();
    const { client, transport, server } = await connect(
      (request, res) => sendJson(res, 200, result(request, DISCOVER_RESULT)),
      { cache },
    );
    assert.equal(client.era, "modern");
    assert.equal(transport.flavour, "modern");
    assert.deepEqual([...cache.values()], ["modern"]);
    assert.deepEqual(server.methods(), ["server/discover"]);
  });

  it("400 with -32022 retries with a version from data.supported, never initialize", async () => {
    const { client, server } = await connect(
      (request, res) => {
        const version = request.headers["mcp-protocol-version"];
        if (version !== "2026-07-28") {
          return sendJson(
            res,
            400,
            rpcError(request, -32022, "Unsupported protocol version", {
              supported: ["2026-07-28"],
              requested: version,
            }),
          );
        }
        sendJson(res, 200, result(request, DISCOVER_RESULT));
      },
      { protocolVersion: "2099-01-01" },
    );
    assert.equal(client.era, "modern");
    assert.equal(client.protocolVersion, "2026-07-28");
    assert.deepEqual(
      server.requests.map((r) => r.headers["mcp-protocol-version"]),
      ["2099-01-01", "2026-07-28"],
    );
    assert.deepEqual(server.methods(), ["server/discover", "server/discover"]);
  });

  it("a first -32022 naming our own version is retried once with it (request-metadata)", async () => {
    let first = true;
    const { client, server } = await connect((request, res) => {
      if (first) {
        first = false;
        return sendJson(
          res,
          400,
          rpcError(request, -32022, "Unsupported protocol version", { supported: ["2026-07-28"] }),
        );
      }
      sendJson(res, 200, result(request, DISCOVER_RESULT));
    });
    assert.equal(client.era, "modern");
    assert.deepEqual(
      server.requests.map((r) => r.headers["mcp-protocol-version"]),
      ["2026-07-28", "2026-07-28"],
    );
  });

  it("a plain 400 falls back to initialize; the session id and version ride every later request", async () => {
    const { client, server, transport } = await connect(legacyScript());
    assert.equal(client.era, "legacy");
    assert.equal(transport.flavour, "legacy");
    assert.equal(transport.sessionId, "session-1");
    await client.callTool("t", {});
    const posts = server.requests.filter((r) => r.method === "POST");
    assert.deepEqual(
      posts.map((r) => r.json?.method),
      ["server/discover", "initialize", "notifications/initialized", "tools/call"],
    );
    assert.equal(posts[1]!.headers["mcp-session-id"], undefined);
    for (const later of posts.slice(2)) {
      assert.equal(later.headers["mcp-session-id"], "session-1");
      assert.equal(later.headers["mcp-protocol-version"], "2025-11-25");
    }
    // The standalone GET stream was asked for (this server offers none: 405).
    await until(() => server.requests.some((r) => r.method === "GET"));
    const get = server.requests.find((r) => r.method === "GET")!;
    assert.equal(get.headers.accept, "text/event-stream");
    assert.equal(get.headers["mcp-session-id"], "session-1");
    await client.close();
    await until(() => server.requests.some((r) => r.method === "DELETE"));
    assert.equal(
      server.requests.find((r) => r.method === "DELETE")!.headers["mcp-session-id"],
      "session-1",
    );
  });

  it("401 is never an era signal: connect fails, no initialize", async () => {
    server = await scriptedServer((_request, res) => {
      res.writeHead(401, { "WWW-Authenticate": "Bearer" }).end();
    });
    client = new McpClient({ clientInfo });
    await assert.rejects(
      client.connect(new HttpClientTransport(server.url, { flavourCache: new Map() })),
      (error: unknown) => {
        assert.ok(error instanceof HttpStatusError);
        assert.equal(error.status, 401);
        return true;
      },
    );
    assert.deepEqual(server.methods(), ["server/discover"]);
    client = undefined;
  });

  it("a cached legacy endpoint skips the modern probe", async () => {
    const cache = new Map<string, HttpFlavour>();
    await connect(legacyScript(), { cache });
    await client!.close();
    const before = server!.requests.length;
    await connect(legacyScript(), { cache });
    assert.equal(client!.era, "legacy");
    const methods = server!.requests.slice(before).flatMap((r) => (r.json ? [r.json.method] : []));
    assert.deepEqual(methods, ["initialize", "notifications/initialized"]);
  });

  it("a client forcing modern still asks an endpoint cached as legacy (it may have changed)", async () => {
    const cache = new Map<string, HttpFlavour>();
    let upgraded = false;
    const script = (request: Captured, res: ServerResponse) => {
      if (upgraded && request.json?.method === "server/discover") {
        return sendJson(res, 200, result(request, DISCOVER_RESULT));
      }
      legacyScript()(request, res);
    };
    await connect(script, { cache });
    assert.equal(client!.era, "legacy");
    await client!.close();
    upgraded = true; // the server was upgraded in place
    const before = server!.requests.length;
    const transport = new HttpClientTransport(server!.url, { flavourCache: cache });
    client = new McpClient({ clientInfo, era: "modern" });
    await client.connect(transport);
    assert.equal(client.era, "modern");
    const methods = server!.requests.slice(before).flatMap((r) => (r.json ? [r.json.method] : []));
    assert.deepEqual(methods, ["server/discover"]);
    assert.equal(transport.flavour, "modern");
  });
});

describe("legacy Streamable HTTP session", () => {
  it("re-initializes after a 404 and retries the request under the new session", async () => {
    let sessionId = "old";
    let expired = false;
    const script = (request: Captured, res: ServerResponse) => {
      if (request.json?.method === "initialize") sessionId = expired ? "new" : "old";
      if (expired && request.headers["mcp-session-id"] === "old") {
        res.writeHead(404).end();
        return;
      }
      legacyScript(undefined, sessionId)(request, res);
    };
    const { client, transport, server } = await connect(script);
    assert.equal(transport.sessionId, "old");
    expired = true;
    const outcome = await client.callTool("t", {});
    assert.deepEqual(outcome.content, TOOL_RESULT.content);
    assert.equal(transport.sessionId, "new");
    assert.ok(warnings.some((warning) => warning.includes("re-initialized as new")));
    const posts = server.requests.filter((r) => r.method === "POST");
    assert.deepEqual(
      posts.slice(3).map((r) => [r.json?.method, r.headers["mcp-session-id"]]),
      [
        ["tools/call", "old"],
        ["initialize", undefined],
        ["notifications/initialized", "new"],
        ["tools/call", "new"],
      ],
    );
  });

  it("resumes a broken POST stream with GET + Last-Event-ID after the retry delay", async () => {
    let brokeAt = 0;
    let resumedAt = 0;
    let callId: unknown;
    const script = legacyScript((request, res) => {
      if (request.json?.method === "tools/call") {
        // The conformance sse-retry shape: a priming event (id, retry, empty data), then close.
        res.writeHead(200, { "Content-Type": "text/event-stream" });
        res.write("id: evt-1\nretry: 300\ndata:\n\n");
        brokeAt = Date.now();
        res.end(); // server-initiated disconnect before the result
        return true;
      }
      if (request.method === "GET" && request.headers["last-event-id"] === "evt-1") {
        resumedAt = Date.now();
        const write = startSse(res);
        write(result({ ...request, json: { id: callId } } as Captured, TOOL_RESULT), {
          id: "evt-3",
        });
        return true;
      }
      return false;
    });
    const { client, server } = await connect((request, res) => {
      if (request.json?.method === "tools/call") callId = request.json.id;
      return script(request, res);
    });
    const outcome = await client.callTool("slow", {});
    assert.deepEqual(outcome.content, TOOL_RESULT.content);
    const resume = server.requests.find((r) => r.headers["last-event-id"] !== undefined)!;
    assert.equal(resume.method, "GET");
    assert.equal(resume.headers["mcp-session-id"], "session-1");
    assert.equal(resume.headers.accept, "text/event-stream");
    assert.ok(resumedAt - brokeAt >= 250, `resumed after ${resumedAt - brokeAt} ms, retry was 300`);
  });

  it("cancelling a legacy request sends notifications/cancelled within the session", async () => {
    const { client, server } = await connect(
      legacyScript((request) => request.json?.method === "tools/call"), // never answered
    );
    const controller = new AbortController();
    const pending = client.callTool("slow", {}, { signal: controller.signal });
    await until(() => server.methods().includes("tools/call"));
    const call = server.requests.find((r) => r.json?.method === "tools/call")!;
    controller.abort("enough");
    await assert.rejects(pending, LocalError);
    await until(() => server.methods().includes("notifications/cancelled"));
    const cancelled = server.requests.find((r) => r.json?.method === "notifications/cancelled")!;
    assert.equal(cancelled.headers["mcp-session-id"], "session-1");
    assert.equal((cancelled.json!.params as { requestId: unknown }).requestId, call.json?.id);
  });

  it("delivers server requests from the GET stream and POSTs the client's reply", async () => {
    const replies: Captured[] = [];
    const { server } = await connect(
      legacyScript((request, res) => {
        if (request.method === "GET" && !request.headers["last-event-id"]) {
          const write = startSse(res);
          write({ jsonrpc: "2.0", id: "srv-1", method: "ping" }, { id: "g1" });
          return true;
        }
        if (request.json && "result" in request.json) {
          replies.push(request);
          res.writeHead(202).end();
          return true;
        }
        return false;
      }),
    );
    await until(() => replies.length === 1);
    assert.equal(replies[0]!.json?.id, "srv-1");
    assert.equal(replies[0]!.headers["mcp-session-id"], "session-1");
    void server;
  });
});

describe("deprecated HTTP+SSE fallback", () => {
  it("when initialize meets a plain 405, a GET expecting `endpoint` takes over", async () => {
    let stream: ((data: unknown, fields?: { event?: string }) => void) | undefined;
    const { client, transport, server } = await connect((request, res) => {
      if (request.method === "GET" && request.path === "/mcp") {
        const write = startSse(res);
        res.write("event: endpoint\ndata: /messages?sessionId=abc\n\n");
        stream = write;
        return;
      }
      if (request.path.startsWith("/messages")) {
        res.writeHead(202).end("Accepted");
        const message = request.json!;
        if (message.method === "initialize")
          stream!(result(request, { ...INITIALIZE_RESULT, protocolVersion: "2024-11-05" }));
        else if (message.method === "tools/call") stream!(result(request, TOOL_RESULT));
        return;
      }
      res.writeHead(405, { "Content-Type": "text/plain" }).end("Method Not Allowed");
    });
    assert.equal(client.era, "legacy");
    assert.equal(transport.flavour, "sse");
    const outcome = await client.callTool("t", {});
    assert.deepEqual(outcome.content, TOOL_RESULT.content);
    const posted = server.requests
      .filter((r) => r.path.startsWith("/messages"))
      .map((r) => r.json?.method);
    assert.deepEqual(posted, ["initialize", "notifications/initialized", "tools/call"]);
  });

  it("a closed HTTP+SSE stream closes the transport", async () => {
    let streamRes: ServerResponse | undefined;
    const { client } = await connect((request, res) => {
      if (request.method === "GET") {
        startSse(res);
        res.write("event: endpoint\ndata: /messages\n\n");
        streamRes = res;
        return;
      }
      if (request.path === "/messages") {
        res.writeHead(202).end();
        if (request.json?.method === "initialize") {
          streamRes!.write(`data: ${JSON.stringify(result(request, INITIALIZE_RESULT))}\n\n`);
        }
        return;
      }
      res.writeHead(404).end();
    });
    streamRes!.end();
    await client.closed;
    await assert.rejects(client.callTool("t", {}), LocalError);
  });
});
