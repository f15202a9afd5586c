/**
 * The node:http adapter: one endpoint path, body limits enforced while streaming, and timeouts
 * against clients that send their headers or body too slowly.
 */
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { describe, it } from "node:test";
import { mcpHeaders, post, request, startTestServer } from "./http-helpers.js";

/** Resolves with whatever the server wrote before it closed the connection. */
function rawExchange(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(received));
    socket.write(text);
  });
}

describe("node:http adapter", () => {
  it("serves the endpoint path only; anything else is 404", async () => {
    const served = await startTestServer({ path: "/api/mcp" });
    try {
      assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+\/api\/mcp$/);
      const ok = await post(served.url, request("tools/list"));
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
      const withQuery = await post(`${served.url}?x=1`, request("tools/list"));
      assert.equal(withQuery.status, 200);
      await withQuery.body?.cancel();
      const other = await post(new URL("/mcp", served.url).href, request("tools/list"));
      assert.equal(other.status, 404);
      await other.body?.cancel();
    } finally {
      await served.close();
    }
  });

  it("stops reading a chunked body at the limit and answers 413", async () => {
    const served = await startTestServer({ maxBodyBytes: 32 * 1024 });
    try {
      const body = request("tools/list");
      const status = await new Promise<number>((resolve, reject) => {
        const client = httpRequest(served.url, {
          method: "POST",
          headers: { ...mcpHeaders(body), "Transfer-Encoding": "chunked" },
        });
        client.on("response", (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        client.on("error", reject);
        const chunk = "x".repeat(8 * 1024);
        let sent = 0;
        // Keep sending (well past the limit) until the server answers.
        const pump = () => {
          while (sent < 1024 && client.write(chunk)) sent++;
          if (sent < 1024) client.once("drain", pump);
          else client.end();
        };
        pump();
      });
      assert.equal(status, 413);
    } finally {
      await served.close();
    }
  });

  it("closes a connection whose headers arrive too slowly (408)", async () => {
    const served = await startTestServer({ headersTimeoutMs: 300 });
    try {
      const { host } = new URL(served.url);
      const reply = await rawExchange(served.url, `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n`);
      assert.match(reply, /^HTTP\/1\.1 408/);
    } finally {
      await served.close();
    }
  });

  it("closes a connection whose body arrives too slowly", async () => {
    const served = await startTestServer({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    try {
      const { host } = new URL(served.url);
      const headers = Object.entries(mcpHeaders(request("tools/list")))
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("");
      const reply = await rawExchange(
        served.url,
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n${headers}Content-Length: 500\r\n\r\n{"jsonrpc"`,
      );
      assert.match(reply, /^HTTP\/1\.1 408/);
    } finally {
      await served.close();
    }
  });
});
