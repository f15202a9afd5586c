/**
 * Connections that never send a request (issue 32.B3): node:http's headersTimeout starts only
 * with a request's first byte, so 2,000 silent connections were still open after 75 s. serveHttp
 * closes them after firstRequestTimeoutMs (shortened here), leaves a connection that has sent a
 * request to node's own timeouts (a long listen stream lives on), and maxConnections caps how
 * many are open at once. Raw sockets on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { until } from "../../helpers/poll.js";
import { mcpHeaders, request, startTestServer } from "./http-helpers.js";

/** A raw connection to the server behind `url`, open once connected. */
async function open(
  url: string,
): Promise<{ socket: Socket; closed: Promise<void>; received: () => string }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let text = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    text += chunk;
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return { socket, closed, received: () => text };
}

/** Fails (rather than hangs) when the server never closes the connection. */
async function closedByServer(closed: Promise<void>, what: string): Promise<void> {
  const guard = delay(10_000, "open");
  assert.notEqual(await Promise.race([closed.then(() => "closed"), guard]), "open", what);
}

async function openConnections(served: { server: import("node:http").Server }): Promise<number> {
  return new Promise((resolve, reject) =>
    served.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

describe("node:http adapter: idle connections", () => {
  it("closes connections that send nothing within firstRequestTimeoutMs", async () => {
    const served = await startTestServer({ firstRequestTimeoutMs: 200 });
    try {
      const silent = await Promise.all(Array.from({ length: 20 }, () => open(served.url)));
      for (const [index, connection] of silent.entries()) {
        await closedByServer(connection.closed, `silent connection ${index}`);
      }
      assert.equal(await openConnections(served), 0);
    } finally {
      await served.close();
    }
  });

  it("a connection that sent its request is left to node's timeouts: a listen stream lives on", async () => {
    const served = await startTestServer({ firstRequestTimeoutMs: 100, keepAliveMs: 0 });
    try {
      const { host } = new URL(served.url);
      const body = request("subscriptions/listen", { notifications: { toolsListChanged: true } });
      const text = JSON.stringify(body);
      const headers = Object.entries(mcpHeaders(body))
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("");
      const stream = await open(served.url);
      stream.socket.write(
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n${headers}Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
      );
      await until(
        () => stream.received().includes("notifications/subscriptions/acknowledged"),
        "the acknowledgement",
      );
      // Several times the first-request timeout, idle (no keep-alive comments).
      await delay(500);
      served.mcp.tool({ name: "added-later", inputSchema: { type: "object" } }, () => "x");
      await until(
        () => stream.received().includes("notifications/tools/list_changed"),
        "the list change on the stream",
      );
      assert.equal(stream.socket.destroyed, false);
      stream.socket.destroy();
    } finally {
      await served.close();
    }
  });

  it("maxConnections closes connections past the cap as they arrive", async () => {
    const served = await startTestServer({ firstRequestTimeoutMs: 0, maxConnections: 2 });
    try {
      const held = [await open(served.url), await open(served.url)];
      const third = await open(served.url);
      await closedByServer(third.closed, "the connection past the cap");
      assert.equal(
        held.some((connection) => connection.socket.destroyed),
        false,
      );
      held[0]!.socket.destroy();
      await held[0]!.closed;
      await until(async () => (await openConnections(served)) === 1, "the server saw one close");
      const response = await fetch(served.url, {
        method: "POST",
        headers: mcpHeaders(request("tools/list")),
        body: JSON.stringify(request("tools/list")),
      });
      assert.equal(response.status, 200);
      await response.body?.cancel();
      held[1]!.socket.destroy();
    } finally {
      await served.close();
    }
  });
});
