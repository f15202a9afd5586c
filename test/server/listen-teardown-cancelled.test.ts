/**
 * A server tearing a subscriptions/listen stream down itself sends notifications/cancelled for
 * the listen request (2026-07-28 basic/patterns/cancellation.mdx: MUST), then the completion
 * result (basic/patterns/subscriptions.mdx, Graceful Closure), on every transport.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { serveHttp } from "../../src/transports/http/node-adapter.js";
import { buildSpecRulesServer } from "../fixtures/spec-rules-server.js";
import { MODERN_META, RawStdioServer, type Wire } from "../hardening/raw-stdio.js";
import { post, request, SseMessages } from "../transports/http/http-helpers.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/spec-rules-server.js", import.meta.url));
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

function assertTeardown(cancelled: Wire, completion: Wire, id: string | number): void {
  assert.equal(cancelled?.method, "notifications/cancelled");
  assert.equal(cancelled.params.requestId, id);
  assert.equal(typeof cancelled.params.reason, "string");
  assert.equal(cancelled.params._meta[SUBSCRIPTION_ID], id);
  assert.equal(completion?.id, id);
  assert.equal(completion.result.resultType, "complete");
  assert.equal(completion.result._meta[SUBSCRIPTION_ID], id);
}

describe("subscriptions/listen torn down by the server", () => {
  it("stdio: end of input sends notifications/cancelled, then the completion result", async () => {
    const server = new RawStdioServer(FIXTURE);
    try {
      await server.line(
        JSON.stringify({
          jsonrpc: "2.0",
          id: "listen-1",
          method: "subscriptions/listen",
          params: { _meta: MODERN_META, notifications: { toolsListChanged: true } },
        }),
      );
      await server.reply(
        (message) => message?.method === "notifications/subscriptions/acknowledged",
        "the acknowledgement",
      );
    } finally {
      const exit = await server.stop();
      assert.equal(exit.code, 0);
    }
    const cancelledAt = server.replies.findIndex(
      (message) => message?.method === "notifications/cancelled",
    );
    assert.ok(cancelledAt >= 0, `no notifications/cancelled in ${JSON.stringify(server.replies)}`);
    assertTeardown(server.replies[cancelledAt], server.replies[cancelledAt + 1], "listen-1");
    assert.equal(server.replies.length, cancelledAt + 2, "nothing after the completion result");
  });

  it("HTTP: closing the server sends both on the SSE stream, under the client's id", async () => {
    const served = await serveHttp(buildSpecRulesServer());
    let closed = false;
    try {
      const response = await post(
        served.url,
        request("subscriptions/listen", { notifications: { toolsListChanged: true } }, 7),
      );
      const reader = new SseMessages(response);
      assert.equal((await reader.next()).method, "notifications/subscriptions/acknowledged");
      await served.close();
      closed = true;
      assertTeardown(await reader.next(), await reader.next(), 7);
      assert.equal(await reader.next(), undefined);
    } finally {
      if (!closed) await served.close();
    }
  });

  it("a client's own cancellation gets neither (stdio)", async () => {
    const server = new RawStdioServer(FIXTURE);
    try {
      const listen = {
        jsonrpc: "2.0",
        id: 5,
        method: "subscriptions/listen",
        params: { _meta: MODERN_META, notifications: { toolsListChanged: true } },
      };
      await server.line(JSON.stringify(listen));
      await server.reply(
        (message) => message?.method === "notifications/subscriptions/acknowledged",
        "the acknowledgement",
      );
      await server.line(
        JSON.stringify({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: 5 },
        }),
      );
      // A later request's reply proves the cancellation was handled before it.
      await server.line(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 6,
          method: "tools/list",
          params: { _meta: MODERN_META },
        }),
      );
      await server.replyTo(6);
    } finally {
      await server.stop();
    }
    assert.equal(
      server.replies.some(
        (message) => message?.method === "notifications/cancelled" || message?.id === 5,
      ),
      false,
    );
  });
});
