/**
 * The bad-input catalogue (docs/bad-input.md), one test per row, on the real wire: the stdio
 * rows drive a subprocess of examples/stdio-server with raw bytes, the HTTP rows a real
 * node:http server on 127.0.0.1. Every row also checks the server goes on serving afterwards.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { encodeHeaderValue } from "../../src/protocol/http-headers.js";
import { SchemaError } from "../../src/schema/validator.js";
import { McpServer } from "../../src/server/index.js";
import { serveHttp } from "../../src/transports/http/node-adapter.js";
import { until } from "../helpers/poll.js";
import {
  json,
  mcpHeaders,
  meta,
  post,
  request,
  startTestServer,
} from "../transports/http/http-helpers.js";
import { deepArray, MODERN_META, RawStdioServer, type Wire } from "./raw-stdio.js";

const DEEP = 100_000;
const STDIO_LIMIT = 32 * 1024 * 1024;

function call(id: number, name: string, args: Record<string, unknown>): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args, _meta: MODERN_META },
  });
}

function assertError(reply: Wire, code: number, id: unknown, pattern?: RegExp): void {
  assert.equal(reply.jsonrpc, "2.0");
  assert.equal(reply.id, id);
  assert.equal(reply.error?.code, code, JSON.stringify(reply).slice(0, 300));
  if (pattern) assert.match(reply.error.message, pattern);
}

describe("bad input over stdio (examples/stdio-server subprocess)", { timeout: 60_000 }, () => {
  let server: RawStdioServer;
  let nextCheck = 10_000;
  /** Proves the server still answers a good request after the row's bad input. */
  async function stillServes(): Promise<void> {
    const id = nextCheck++;
    await server.line(call(id, "echo", { text: "still here" }));
    const reply = await server.replyTo(id);
    assert.equal(reply.result.content[0].text, "still here");
  }

  before(() => {
    server = new RawStdioServer();
  });
  after(async () => {
    const status = await server.stop();
    assert.deepEqual(status, { code: 0, signal: null }, server.stderr);
  });

  it("stdio: invalid JSON → -32700, id null", async () => {
    await server.line('{"jsonrpc":"2.0","id":1,"method":"tools/list"');
    assertError(await server.replyTo(null), -32700, null, /^Parse error/);
    await stillServes();
  });

  it("stdio: invalid UTF-8 bytes → -32700, id null", async () => {
    const before = server.replies.length;
    await server.write(Buffer.from([0xff, 0xfe, 0x7b, 0x0a]));
    await server.reply(
      (reply) => server.replies.indexOf(reply) >= before && reply?.error?.code === -32700,
      "-32700 for invalid UTF-8",
    );
    await stillServes();
  });

  it('stdio: wrong "jsonrpc" → -32600 with the id', async () => {
    await server.line('{"jsonrpc":"1.0","id":2,"method":"tools/list"}');
    assertError(await server.replyTo(2), -32600, 2, /jsonrpc/);
    await stillServes();
  });

  it('stdio: missing "jsonrpc" → -32600 with the id', async () => {
    await server.line('{"id":3,"method":"tools/list"}');
    assertError(await server.replyTo(3), -32600, 3, /jsonrpc/);
    await stillServes();
  });

  it("stdio: null id and fractional id → -32600, id null", async () => {
    const before = server.replies.length;
    await server.line('{"jsonrpc":"2.0","id":null,"method":"tools/list"}');
    await server.line('{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}');
    await stillServes();
    const errors = server.replies
      .slice(before)
      .filter((reply) => reply?.id === null && reply.error?.code === -32600);
    assert.equal(errors.length, 2);
    for (const error of errors) assert.match(error.error.message, /"id" must be/);
  });

  it("stdio: a batch → one -32600 (id null), no element executed", async () => {
    const batch = [
      { jsonrpc: "2.0", id: 401, method: "tools/list", params: { _meta: MODERN_META } },
      { jsonrpc: "2.0", id: 402, method: "tools/list", params: { _meta: MODERN_META } },
    ];
    const before = server.replies.length;
    await server.line(JSON.stringify(batch));
    await stillServes();
    const fresh = server.replies.slice(before);
    assert.ok(fresh.some((reply) => reply?.id === null && /batch/.test(reply.error?.message)));
    assert.ok(!fresh.some((reply) => reply?.id === 401 || reply?.id === 402));
  });

  it("stdio: a line over the 32 MiB limit → -32600 (id null), dropped unparsed", async () => {
    const line = call(501, "echo", { text: "x".repeat(STDIO_LIMIT) });
    assert.ok(line.length > STDIO_LIMIT);
    await server.line(line);
    const reply = await server.reply(
      (reply) => reply?.id === null && /exceeds/.test(reply.error?.message ?? ""),
      "the oversized-line error",
    );
    assertError(reply, -32600, null);
    await stillServes();
    assert.ok(!server.replies.some((reply) => reply?.id === 501));
  });

  it("stdio: a reply to an unknown id → no answer, logged to stderr", async () => {
    const before = server.replies.length;
    await server.line('{"jsonrpc":"2.0","id":999,"result":{}}');
    await stillServes();
    // Only the still-serves reply: a response is never answered.
    assert.equal(server.replies.length, before + 1);
    // stderr is a separate pipe: its line may come after the stdout reply.
    await until(
      () => /unknown request id 999/.test(server.stderr),
      () => `the unknown id logged; stderr: ${server.stderr}`,
    );
  });

  it("stdio: a duplicate in-flight id → -32600 for the second; the first completes", async () => {
    await server.line(call(601, "slow_count", { n: 10 }));
    await server.line(call(601, "echo", { text: "dup" }));
    const first = await server.reply(
      (reply) => reply?.id === 601 && "error" in reply,
      "the duplicate's error",
    );
    assertError(first, -32600, 601, /Duplicate request id 601/);
    const done = await server.reply(
      (reply) => reply?.id === 601 && "result" in reply,
      "the first request's result",
    );
    assert.equal(done.result.content[0].text, "counted to 10");
    await stillServes();
  });

  it("stdio: a notification carrying an id is a request → answered (-32602 without _meta, -32601 with)", async () => {
    await server.line('{"jsonrpc":"2.0","id":701,"method":"notifications/initialized"}');
    assertError(await server.replyTo(701), -32602, 701, /_meta/);
    await server.line(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 702,
        method: "notifications/initialized",
        params: { _meta: MODERN_META },
      }),
    );
    assertError(await server.replyTo(702), -32601, 702);
    await stillServes();
  });

  it("stdio: a modern request without _meta → -32602", async () => {
    await server.line('{"jsonrpc":"2.0","id":801,"method":"tools/list"}');
    assertError(await server.replyTo(801), -32602, 801, /_meta/);
    await stillServes();
  });

  it("stdio: a 100k-level nested value → -32600 as a message; served when inside params", async () => {
    const before = server.replies.length;
    await server.line(deepArray(DEEP));
    const meta = JSON.stringify(MODERN_META);
    await server.line(
      `{"jsonrpc":"2.0","id":901,"method":"tools/call","params":{"name":"noisy","arguments":{"deep":${deepArray(DEEP)}},"_meta":${meta}}}`,
    );
    await server.line(
      `{"jsonrpc":"2.0","id":902,"method":"tools/list","params":{"_meta":${meta},"deep":${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}}}`,
    );
    assert.ok((await server.replyTo(901)).result, "tool call with a deep argument");
    assert.ok((await server.replyTo(902)).result, "tools/list with deep params");
    assert.ok(
      server.replies
        .slice(before)
        .some((reply) => reply?.id === null && reply.error?.code === -32600),
    );
    await stillServes();
  });

  it("stdio: 200,000 keys in the arguments → served", async () => {
    const args: Record<string, unknown> = { text: "many keys" };
    for (let i = 0; i < 200_000; i++) args[`k${i}`] = i;
    await server.line(call(1001, "echo", args));
    assert.equal((await server.replyTo(1001)).result.content[0].text, "many keys");
    await stillServes();
  });

  it("stdio: blank lines and CRLF line ends → ignored / served", async () => {
    await server.write(
      `\n\r\n   \n${JSON.stringify({ jsonrpc: "2.0", id: 1101, method: "tools/list", params: { _meta: MODERN_META } })}\r\n`,
    );
    assert.ok((await server.replyTo(1101)).result.tools);
    await stillServes();
  });
});

describe("bad input over stdio: end of input", () => {
  it("stdio: a final line without newline → still answered, then a clean exit", async () => {
    const server = new RawStdioServer();
    await server.write(call(1, "echo", { text: "last words" }));
    server.child.stdin.end();
    const reply = await server.replyTo(1);
    assert.equal(reply.result.content[0].text, "last words");
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  });
});

type Served = Awaited<ReturnType<typeof startTestServer>>;

async function expectHttpError(
  response: Response,
  status: number,
  code: number,
  id: unknown,
  pattern?: RegExp,
): Promise<void> {
  assert.equal(response.status, status);
  const body = await json(response);
  assertError(body, code, id, pattern);
}

function toolCall(args: Record<string, unknown>, id = 1, name = "route") {
  return request("tools/call", { name, arguments: args }, id);
}

/** Collects what the server writes on a raw TCP connection until it closes it. */
function rawConnection(url: string) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = "";
  socket.setEncoding("utf8");
  socket.on("data", (text: string) => {
    received += text;
  });
  socket.on("error", () => {});
  const closed = new Promise<string>((resolve) => socket.on("close", () => resolve(received)));
  return { socket, closed };
}

/** Writes `text` one byte every `intervalMs` until the server closes the connection. */
async function trickle(url: string, text: string, intervalMs: number): Promise<string> {
  const { socket, closed } = rawConnection(url);
  let index = 0;
  const timer = setInterval(() => {
    if (index < text.length && !socket.destroyed) socket.write(text[index++]!);
  }, intervalMs);
  try {
    return await closed;
  } finally {
    clearInterval(timer);
  }
}

function countResources(kind: string): number {
  return process.getActiveResourcesInfo().filter((name) => name === kind).length;
}

describe("bad input over HTTP (serveHttp on 127.0.0.1)", { timeout: 60_000 }, () => {
  let served: Served;
  before(async () => {
    served = await startTestServer();
  });
  after(() => served.close());

  async function stillServes(): Promise<void> {
    const response = await post(served.url, toolCall({ text: "ok" }, 77, "echo"));
    assert.equal(response.status, 200);
    assert.equal((await json(response)).result.content[0].text, "ok");
  }

  it("http: invalid JSON → 400, -32700", async () => {
    await expectHttpError(await post(served.url, '{"jsonrpc":'), 400, -32700, null);
    await stillServes();
  });

  it('http: wrong or missing "jsonrpc" → 400, -32600', async () => {
    const wrong = { ...request("tools/list", {}, 2), jsonrpc: "1.0" };
    await expectHttpError(await post(served.url, wrong), 400, -32600, 2, /jsonrpc/);
    const { jsonrpc: _omitted, ...missing } = request("tools/list", {}, 3);
    await expectHttpError(await post(served.url, missing), 400, -32600, 3, /jsonrpc/);
    await stillServes();
  });

  it("http: null id and fractional id → 400, -32600, id null", async () => {
    for (const id of [null, 1.5]) {
      const body = { ...request("tools/list"), id };
      await expectHttpError(await post(served.url, body), 400, -32600, null, /"id"/);
    }
    await stillServes();
  });

  it("http: a batch → 400, -32600", async () => {
    const batch = JSON.stringify([request("tools/list", {}, 1), request("tools/list", {}, 2)]);
    await expectHttpError(await post(served.url, batch), 400, -32600, null, /batch/);
    await stillServes();
  });

  it("http: a POSTed reply to an unknown id → 400, -32600", async () => {
    const reply = { jsonrpc: "2.0", id: 999, result: {} };
    await expectHttpError(await post(served.url, reply), 400, -32600, null, /responses/);
    await stillServes();
  });

  it("http: a duplicate in-flight id → both served (ids are scoped to their POST)", async () => {
    const slow = post(served.url, toolCall({ ms: 200, tag: "first" }, 5, "delay"));
    const fast = post(served.url, toolCall({ ms: 0, tag: "second" }, 5, "delay"));
    const [a, b] = await Promise.all([slow, fast]);
    const [bodyA, bodyB] = [await json(a), await json(b)];
    assert.equal(bodyA.id, 5);
    assert.equal(bodyB.id, 5);
    assert.equal(bodyA.result.content[0].text, "first");
    assert.equal(bodyB.result.content[0].text, "second");
  });

  it("http: a notification carrying an id is a request → 404, -32601", async () => {
    const body = request("notifications/initialized", {}, 6);
    await expectHttpError(await post(served.url, body), 404, -32601, 6);
    await stillServes();
  });

  it("http: a modern request without _meta → 400, -32602 (no version header: legacy, -32600)", async () => {
    const bare = { jsonrpc: "2.0", id: 8, method: "tools/list" };
    await expectHttpError(await post(served.url, bare), 400, -32602, 8, /_meta/);
    // Without MCP-Protocol-Version it reads as a legacy request outside a session.
    const legacy = await post(served.url, bare, { "MCP-Protocol-Version": null });
    await expectHttpError(legacy, 400, -32600, null, /Mcp-Session-Id/);
    await stillServes();
  });

  const mismatches: Array<[string, Record<string, unknown>, Record<string, string | null>]> = [
    ["MCP-Protocol-Version missing", request("tools/list"), { "MCP-Protocol-Version": null }],
    [
      "MCP-Protocol-Version differs from _meta",
      request("tools/list"),
      { "MCP-Protocol-Version": "2099-01-01" },
    ],
    ["Mcp-Method missing", request("tools/list"), { "Mcp-Method": null }],
    ["Mcp-Method differs (case)", request("tools/list"), { "Mcp-Method": "TOOLS/LIST" }],
    ["Mcp-Name missing", toolCall({}), { "Mcp-Name": null }],
    ["Mcp-Name differs", toolCall({}), { "Mcp-Name": "echo" }],
    ["Mcp-Name malformed base64", toolCall({}), { "Mcp-Name": "=?base64?cm91dGU?=" }],
    [
      "Mcp-Name base64 of invalid UTF-8",
      toolCall({}),
      { "Mcp-Name": `=?base64?${Buffer.from([0xff, 0xfe]).toString("base64")}?=` },
    ],
    ["Mcp-Param missing for a provided argument", toolCall({ region: "eu" }), {}],
    ["Mcp-Param sent for an absent argument", toolCall({}), { "Mcp-Param-Region": "eu" }],
    ["Mcp-Param value differs", toolCall({ region: "eu" }), { "Mcp-Param-Region": "us" }],
    ["Mcp-Param number differs", toolCall({ count: 42 }), { "Mcp-Param-Count": "41" }],
    ["Mcp-Param boolean spelling", toolCall({ flag: true }), { "Mcp-Param-Flag": "True" }],
    [
      "Mcp-Param for an object-valued argument",
      toolCall({ region: { a: 1 } }),
      { "Mcp-Param-Region": "eu" },
    ],
  ];
  for (const [name, body, headers] of mismatches) {
    it(`http: header mismatch, ${name} → 400, -32020`, async () => {
      await expectHttpError(await post(served.url, body, headers), 400, -32020, 1);
    });
  }

  it("http: a deeply nested argument behind an Mcp-Param header → 400, -32020 (was 500)", async () => {
    const body = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"route","arguments":{"region":${deepArray(DEEP)}},"_meta":${JSON.stringify(meta())}}}`;
    const headers = {
      ...mcpHeaders({ method: "tools/call", params: { name: "route" } }),
      "Mcp-Param-Region": "eu",
    };
    await expectHttpError(await post(served.url, body, headers), 400, -32020, 9, /nested/);
    await stillServes();
  });

  it("http: an argument starting with U+FEFF, mirrored in base64 → accepted (was -32020)", async () => {
    const region = "\uFEFFeu";
    const headers = { "Mcp-Param-Region": encodeHeaderValue(region) };
    const response = await post(served.url, toolCall({ region }, 16), headers);
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse((await json(response)).result.content[0].text), { region });
  });

  it("http: wrong content type → 415; Accept without both types → 406", async () => {
    const body = request("tools/list");
    const text = await post(served.url, body, { "Content-Type": "text/plain" });
    await expectHttpError(text, 415, -32600, null);
    const accept = await post(served.url, body, { Accept: "application/json" });
    await expectHttpError(accept, 406, -32600, null);
    await stillServes();
  });

  it("http: an oversized body → 413 (declared length and chunked)", async () => {
    const big = toolCall({ text: "x".repeat(5 * 1024 * 1024) }, 10, "echo");
    await expectHttpError(await post(served.url, big), 413, -32600, null, /Too Large/);
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        const chunk = new TextEncoder().encode("x".repeat(1024 * 1024));
        for (let i = 0; i < 6; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const chunked = await fetch(served.url, {
      method: "POST",
      headers: mcpHeaders(request("tools/list")),
      body: chunks,
      duplex: "half",
    } as RequestInit);
    await expectHttpError(chunked, 413, -32600, null);
    await stillServes();
  });

  it("http: a deeply nested body → 400, -32600; nested inside params → served", async () => {
    await expectHttpError(await post(served.url, deepArray(DEEP)), 400, -32600, null, /batch/);
    const body = `{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"_meta":${JSON.stringify(meta())},"deep":${deepArray(DEEP)}}}`;
    const response = await post(served.url, body, mcpHeaders(request("tools/list")));
    assert.equal(response.status, 200);
    assert.ok((await json(response)).result.tools);
  });

  it("http: 100,000 keys in the arguments → served", async () => {
    const args: Record<string, unknown> = { text: "many keys" };
    for (let i = 0; i < 100_000; i++) args[`k${i}`] = i;
    const response = await post(served.url, toolCall(args, 12, "echo"));
    assert.equal(response.status, 200);
    assert.equal((await json(response)).result.content[0].text, "many keys");
  });
});

describe("bad input over HTTP: slow and vanishing clients", { timeout: 30_000 }, () => {
  it("http: headers trickling in → 408 and the connection closed", async () => {
    const served = await startTestServer({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    try {
      const { host } = new URL(served.url);
      const reply = await trickle(served.url, `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n`, 100);
      assert.match(reply, /^HTTP\/1\.1 408/);
      assert.ok((await post(served.url, request("tools/list"))).ok);
    } finally {
      await served.close();
    }
  });

  it("http: a body trickling in → 408 and the connection closed", async () => {
    const served = await startTestServer({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    try {
      const { host } = new URL(served.url);
      const body = JSON.stringify(request("tools/list"));
      const headers = Object.entries(mcpHeaders(request("tools/list")))
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("");
      const { socket, closed } = rawConnection(served.url);
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n${headers}Content-Length: ${body.length}\r\n\r\n`,
      );
      let index = 0;
      const timer = setInterval(() => {
        if (index < body.length && !socket.destroyed) socket.write(body[index++]!);
      }, 100);
      const reply = await closed.finally(() => clearInterval(timer));
      assert.match(reply, /^HTTP\/1\.1 408/);
      assert.ok((await post(served.url, request("tools/list"))).ok);
    } finally {
      await served.close();
    }
  });

  it("http: a client disconnecting mid-SSE → handler aborted, nothing left behind", async () => {
    // The stream opens at once; a 50 ms keep-alive interval would show up if it leaked.
    const served = await startTestServer({ streamingMethods: ["tools/call"], keepAliveMs: 50 });
    try {
      const timersBefore = countResources("Timeout");
      // node:http rather than fetch: undici keeps timers of its own that would blur the count.
      const body = JSON.stringify(toolCall({}, 13, "hold"));
      const client = httpRequest(served.url, {
        method: "POST",
        headers: mcpHeaders(JSON.parse(body)),
        agent: false,
      });
      client.on("error", () => {});
      const response = await new Promise<IncomingMessage>((resolve) => {
        client.once("response", resolve);
        client.end(body);
      });
      assert.equal(response.statusCode, 200);
      assert.match(response.headers["content-type"] ?? "", /text\/event-stream/);
      await once(response, "data"); // a keep-alive comment: the stream is live
      await served.probe.holdStarted;
      client.destroy();
      const reason = await served.probe.holdAborted;
      assert.ok(reason instanceof Error);
      // The keep-alive interval and the connection are released.
      let connections = 0;
      await until(
        async () => {
          connections = await new Promise<number>((resolve, reject) =>
            served.server.getConnections((error, count) =>
              error ? reject(error) : resolve(count),
            ),
          );
          return connections === 0 && countResources("Timeout") <= timersBefore;
        },
        () => `nothing left; left: ${connections} connections, ${process.getActiveResourcesInfo()}`,
      );
      assert.ok((await post(served.url, request("tools/list"))).ok);
    } finally {
      await served.close();
    }
  });
});

describe("bad input: pathological JSON Schemas in tool definitions", () => {
  function nested(depth: number): Record<string, unknown> {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < depth; i++) schema = { type: "object", properties: { a: schema } };
    return schema;
  }
  const server = () => new McpServer({ serverInfo: { name: "schemas", version: "0" } });

  it("schema: 10,000 levels deep → refused at registration (SchemaError)", () => {
    assert.throws(() => server().tool({ name: "deep", inputSchema: nested(10_000) }, () => ""), {
      name: "SchemaError",
      message: /deeper than 64/,
    });
  });

  it("schema: over 1 MB → refused at registration", () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 40_000; i++) properties[`property${i}`] = { type: "string" };
    assert.throws(
      () => server().tool({ name: "big", inputSchema: { type: "object", properties } }, () => ""),
      (error: unknown) => error instanceof SchemaError && /larger than/.test(error.message),
    );
  });

  it("schema: a cycle (object graph) → refused at registration", () => {
    const schema: Record<string, unknown> = { type: "object", properties: {} };
    (schema.properties as Record<string, unknown>).self = schema;
    assert.throws(() => server().tool({ name: "cycle", inputSchema: schema }, () => ""), {
      name: "SchemaError",
    });
  });

  it("schema: a recursive $ref fed 100k-level arguments → isError result over HTTP, server alive", async () => {
    const mcp = server();
    mcp.tool(
      {
        name: "tree",
        // Recursive through $defs: ajv, as configured here, cannot resolve a bare "#".
        inputSchema: {
          $ref: "#/$defs/node",
          $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" } } } },
        },
      },
      () => "ok",
    );
    const served = await serveHttp(mcp);
    try {
      const deep = `${'{"next":'.repeat(DEEP)}{}${"}".repeat(DEEP)}`;
      const body = `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"tree","arguments":${deep},"_meta":${JSON.stringify(meta())}}}`;
      const headers = mcpHeaders({ method: "tools/call", params: { name: "tree" } });
      const response = await post(served.url, body, headers);
      const reply = await json(response);
      assert.equal(reply.id, 14);
      // Invalid arguments are a tool execution error (isError), not a protocol error.
      assert.equal(reply.result?.isError, true, JSON.stringify(reply).slice(0, 300));
      assert.match(reply.result.content[0].text, /nested too deeply/);
      const ok = await post(served.url, toolCall({ next: {} }, 15, "tree"));
      assert.equal((await json(ok)).result.content[0].text, "ok");
    } finally {
      await served.close();
    }
  });
});
