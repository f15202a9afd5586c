/**
 * The web handler's body limit, called with Requests directly as Bun.serve, Deno.serve or a
 * Worker would: a declared Content-Length is read whole (no JS stream), and a length the
 * Request only claims cannot sneak a larger body past the limit; a body of unknown length is
 * read as a stream and cut off at the limit.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { McpServer } from "../../../src/server/index.js";
import { createHttpHandler } from "../../../src/transports/http/server.js";

const LIMIT = 1024;
const URL_ = "http://127.0.0.1/mcp";
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "echo",
};

function server(): McpServer {
  const mcp = new McpServer({ serverInfo: { name: "body", version: "1" } });
  mcp.tool(
    {
      name: "echo",
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
    },
    (args) => String(args.text),
  );
  return mcp;
}

function call(text: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "echo",
      arguments: { text },
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
}

/** A POST whose Content-Length says `length` (the body's own length unless given). */
function declared(body: string, length = body.length): Request {
  return new Request(URL_, {
    method: "POST",
    body,
    headers: { ...HEADERS, "content-length": String(length) },
  });
}

/** A body of unknown length: a stream, so the Request has no Content-Length. */
function streamed(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 100) controller.enqueue(bytes.slice(at, at + 100));
      controller.close();
    },
  });
}

describe("web handler: request bodies", () => {
  const handler = createHttpHandler(server(), { maxBodyBytes: LIMIT });
  after(() => handler.close());

  it("answers a body with a declared length within the limit", async () => {
    const response = await handler.handle(declared(call("hello")));
    assert.equal(response.status, 200);
    const reply = (await response.json()) as { result: { content: { text: string }[] } };
    assert.equal(reply.result.content[0]?.text, "hello");
  });

  it("refuses a declared length over the limit with 413, unread", async () => {
    const response = await handler.handle(declared(call("x".repeat(2 * LIMIT))));
    assert.equal(response.status, 413);
  });

  it("refuses a body larger than the length it claims (413)", async () => {
    const response = await handler.handle(declared(call("x".repeat(2 * LIMIT)), 100));
    assert.equal(response.status, 413);
  });

  it("reads a body of unknown length as a stream: answered within the limit, 413 past it", async () => {
    const small = await handler.handle(
      new Request(URL_, {
        method: "POST",
        body: streamed(call("hi")),
        headers: HEADERS,
        duplex: "half",
      } as RequestInit),
    );
    assert.equal(small.status, 200);
    const large = await handler.handle(
      new Request(URL_, {
        method: "POST",
        body: streamed(call("x".repeat(2 * LIMIT))),
        headers: HEADERS,
        duplex: "half",
      } as RequestInit),
    );
    assert.equal(large.status, 413);
  });
});
