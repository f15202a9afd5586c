/**
 * How the modern HTTP server answers: JSON or a request-scoped SSE stream, keep-alive comments,
 * cancellation by closing the stream, and clients that reuse the same JSON-RPC ids at once.
 */
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, it } from "node:test";
import {
  json,
  mcpHeaders,
  meta,
  parseSse,
  post,
  readSse,
  request,
  SseMessages,
  startTestServer,
} from "./http-helpers.js";

type Served = Awaited<ReturnType<typeof startTestServer>>;

function withProgress(body: Record<string, unknown>, token: string | number) {
  const params = body.params as { _meta: Record<string, unknown> };
  params._meta = meta({ progressToken: token });
  return body;
}

describe("Streamable HTTP server: JSON and SSE replies", () => {
  let served: Served;
  before(async () => {
    served = await startTestServer();
  });
  after(() => served.close());

  it("streams progress notifications then the result when a handler reports progress", async () => {
    const body = withProgress(request("tools/call", { name: "steps" }, 5), "tok");
    const response = await post(served.url, body);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    assert.equal(response.headers.get("x-accel-buffering"), "no");
    const { messages } = await readSse(response);
    assert.equal(messages.length, 4);
    for (const [index, message] of messages.slice(0, 3).entries()) {
      assert.equal(message.method, "notifications/progress");
      assert.equal(message.params.progressToken, "tok");
      assert.equal(message.params.progress, index + 1);
    }
    assert.equal(messages[3].id, 5);
    assert.equal(messages[3].result.content[0].text, "done");
  });

  it("answers with JSON when the handler sent nothing before its result", async () => {
    // No progressToken: the tool's progress calls send nothing.
    const response = await post(served.url, request("tools/call", { name: "steps" }, 6));
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal((await json(response)).result.content[0].text, "done");
  });

  it("reuses of one id by concurrent clients never cross", async () => {
    const calls = Array.from({ length: 12 }, (_, index) => {
      const body = request("tools/call", {
        name: "delay",
        arguments: { ms: (12 - index) * 5, tag: `client-${index}` },
      });
      return post(served.url, body).then(json);
    });
    const replies = await Promise.all(calls);
    for (const [index, reply] of replies.entries()) {
      assert.equal(reply.id, 1);
      assert.equal(reply.result.content[0].text, `client-${index}`);
    }
  });
});

describe("Streamable HTTP server: response policy", () => {
  it('"sse" streams every request and sends keep-alive comments', async () => {
    const served = await startTestServer({ responseMode: "sse", keepAliveMs: 20 });
    try {
      const body = request("tools/call", { name: "delay", arguments: { ms: 150, tag: "late" } });
      const response = await post(served.url, body);
      assert.equal(response.headers.get("content-type"), "text/event-stream");
      const { messages, comments } = await readSse(response);
      assert.ok(comments >= 1, `saw ${comments} keep-alive comments`);
      assert.equal(messages.length, 1);
      assert.equal(messages[0].result.content[0].text, "late");
    } finally {
      await served.close();
    }
  });

  it('"json" never streams: notifications are dropped, the result comes as JSON', async () => {
    const served = await startTestServer({ responseMode: "json" });
    try {
      const response = await post(
        served.url,
        withProgress(request("tools/call", { name: "steps" }), 1),
      );
      assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
      assert.equal((await json(response)).result.content[0].text, "done");
    } finally {
      await served.close();
    }
  });

  it("streamingMethods open the stream before anything is sent", async () => {
    const served = await startTestServer({ streamingMethods: ["tools/call"], keepAliveMs: 0 });
    try {
      const body = request("tools/call", { name: "hold" });
      const controller = new AbortController();
      // Headers arrive although the handler is still waiting.
      const response = await post(served.url, body, {}, controller.signal);
      assert.equal(response.headers.get("content-type"), "text/event-stream");
      controller.abort();
      await served.probe.holdAborted;
    } finally {
      await served.close();
    }
  });
});

describe("Streamable HTTP server: cancellation by disconnect", () => {
  it("closing the SSE stream aborts the handler's signal, and nothing more is written", async () => {
    const served = await startTestServer();
    try {
      const body = withProgress(
        request("tools/call", { name: "hold", arguments: { stream: true } }),
        1,
      );
      const controller = new AbortController();
      const response = await post(served.url, body, {}, controller.signal);
      assert.equal(response.headers.get("content-type"), "text/event-stream");
      const reader = response.body!.getReader();
      const first = await reader.read();
      const text = new TextDecoder().decode(first.value);
      assert.equal(parseSse(text).messages[0].method, "notifications/progress");
      await served.probe.holdStarted;
      await reader.cancel();
      controller.abort();
      const reason = await served.probe.holdAborted;
      assert.ok(reason instanceof Error);
    } finally {
      await served.close();
    }
  });

  it("a client that disconnects before a JSON reply cancels the handler too", async () => {
    const served = await startTestServer();
    try {
      const body = JSON.stringify(request("tools/call", { name: "hold" }));
      const client = httpRequest(served.url, {
        method: "POST",
        headers: mcpHeaders(JSON.parse(body)),
      });
      client.on("error", () => {});
      client.end(body);
      await served.probe.holdStarted;
      client.destroy();
      const reason = await served.probe.holdAborted;
      assert.ok(reason instanceof Error);
    } finally {
      await served.close();
    }
  });

  it("closing the handler ends open streams and answers pending requests", async () => {
    const served = await startTestServer();
    const pending = post(served.url, request("tools/call", { name: "hold" }));
    await served.probe.holdStarted;
    await served.close();
    await served.probe.holdAborted;
    // The handler was stopped; its error reply (or a 503 if it had not replied) is sent.
    const reply = await json(await pending);
    assert.equal(reply.id, 1);
    assert.equal(reply.error.code, -32603);
  });
});

describe("Streamable HTTP server: subscriptions/listen", () => {
  const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

  it("streams from the start, under each client's own id, and completes on close", async () => {
    const served = await startTestServer({ keepAliveMs: 0 });
    const listen = () =>
      post(
        served.url,
        request("subscriptions/listen", { notifications: { toolsListChanged: true } }),
      );
    let closed = false;
    try {
      // Two clients, both using id 1.
      const streams = await Promise.all([listen(), listen()]);
      const readers = streams.map((response) => {
        assert.equal(response.headers.get("content-type"), "text/event-stream");
        return new SseMessages(response);
      });
      for (const reader of readers) {
        const ack = await reader.next();
        assert.equal(ack.method, "notifications/subscriptions/acknowledged");
        assert.equal(ack.params._meta[SUBSCRIPTION_ID], 1);
      }
      served.mcp.tool({ name: "added_later" }, () => "new");
      for (const reader of readers) {
        const changed = await reader.next();
        assert.equal(changed.method, "notifications/tools/list_changed");
        assert.equal(changed.params._meta[SUBSCRIPTION_ID], 1);
      }
      await served.close();
      closed = true;
      for (const reader of readers) {
        // Torn down by the server: notifications/cancelled first, then the completion result.
        const cancelled = await reader.next();
        assert.equal(cancelled.method, "notifications/cancelled");
        assert.equal(cancelled.params.requestId, 1);
        const completion = await reader.next();
        assert.equal(completion.id, 1);
        assert.equal(completion.result._meta[SUBSCRIPTION_ID], 1);
        assert.equal(await reader.next(), undefined);
      }
    } finally {
      if (!closed) await served.close();
    }
  });
});
