/**
 * The deprecated HTTP+SSE transport (2024-11-05), opt-in with `legacySse`, over real HTTP: the
 * `endpoint` event, 202 for every POST, replies and related notifications on the stream, and
 * the session ending with its stream.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { waitFor } from "../../helpers/poll.js";
import { call, initializeBody, SseEvents, startLegacyServer } from "./legacy-helpers.js";

async function openSse(base: string, path = "/sse") {
  const response = await fetch(new URL(path, base), { headers: { Accept: "text/event-stream" } });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  const events = new SseEvents(response);
  const endpoint = await events.next();
  assert.equal(endpoint?.event, "endpoint");
  const target = new URL(endpoint?.data ?? "", base);
  const postMessage = (body: unknown) =>
    fetch(target, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  return { events, target, postMessage };
}

describe("deprecated HTTP+SSE (2024-11-05)", () => {
  it("round trip: endpoint event, 202 POSTs, replies and progress on the stream", async () => {
    const served = await startLegacyServer({ legacySse: true });
    try {
      const { events, target, postMessage } = await openSse(served.url);
      assert.equal(target.pathname, "/messages");
      assert.ok(target.searchParams.get("sessionId"));
      const accepted = await postMessage(initializeBody("2024-11-05"));
      assert.equal(accepted.status, 202);
      await accepted.body?.cancel();
      const init = await events.next();
      assert.equal(init?.event, "message");
      assert.equal(init?.message.result.protocolVersion, "2024-11-05");
      await (await postMessage({ jsonrpc: "2.0", method: "notifications/initialized" })).text();
      await (await postMessage(call("steps", {}, 2, "t"))).text();
      const messages = [];
      for (let i = 0; i < 4; i++) messages.push((await events.next())?.message);
      assert.deepEqual(
        messages.map((message) => message.method ?? message.id),
        ["notifications/progress", "notifications/progress", "notifications/progress", 2],
      );
      assert.equal(messages[3].result.content[0].text, "done");
      await events.cancel();
      // The session ends with its stream.
      const gone = await waitFor("the session to end with its stream", async () => {
        const response = await postMessage({ jsonrpc: "2.0", id: 3, method: "ping" });
        await response.body?.cancel();
        return response.status === 404 ? 404 : undefined;
      });
      assert.equal(gone, 404);
    } finally {
      await served.close();
    }
  });

  it("answers an unknown session with 404 and serves configurable paths", async () => {
    const served = await startLegacyServer({
      legacySse: { ssePath: "/old/sse", messagesPath: "/old/messages" },
    });
    try {
      const unknown = await fetch(new URL("/old/messages?sessionId=nope", served.url), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      assert.equal(unknown.status, 404);
      await unknown.body?.cancel();
      const { events, target } = await openSse(served.url, "/old/sse");
      assert.equal(target.pathname, "/old/messages");
      await events.cancel();
      // The default paths are not served when others are configured.
      const other = await fetch(new URL("/sse", served.url));
      assert.equal(other.status, 404);
      await other.body?.cancel();
    } finally {
      await served.close();
    }
  });

  it("is off by default", async () => {
    const served = await startLegacyServer();
    try {
      const response = await fetch(new URL("/sse", served.url));
      assert.equal(response.status, 404);
      await response.body?.cancel();
    } finally {
      await served.close();
    }
  });

  it("applies the Origin check to the SSE path", async () => {
    const served = await startLegacyServer({ legacySse: true });
    try {
      const response = await fetch(new URL("/sse", served.url), {
        headers: { Accept: "text/event-stream", Origin: "http://evil.example.com" },
      });
      assert.equal(response.status, 403);
      await response.body?.cancel();
    } finally {
      await served.close();
    }
  });

  it("holds at most maxSessions streams: 503 beyond, room again once one ends", async () => {
    const served = await startLegacyServer({ legacySse: { maxSessions: 1 } });
    try {
      const first = await openSse(served.url);
      const refused = await fetch(new URL("/sse", served.url), {
        headers: { Accept: "text/event-stream" },
      });
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get("retry-after"), "5");
      const body = (await refused.json()) as { error: { message: string } };
      assert.equal(body.error.message, "Too many HTTP+SSE sessions; retry later");
      await first.events.cancel();
      const second = await waitFor("a free session slot", async () => {
        const response = await fetch(new URL("/sse", served.url), {
          headers: { Accept: "text/event-stream" },
        });
        if (response.status === 200) return response;
        await response.body?.cancel();
        return undefined;
      });
      await second.body?.cancel();
    } finally {
      await served.close();
    }
  });
});
