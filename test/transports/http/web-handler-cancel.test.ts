/**
 * A client that leaves cancels its request on the web handler too (Bun.serve, Deno.serve and
 * Workers abort the Request's signal when the client disconnects): the tool's signal aborts and
 * the response settles, whether the client leaves in the turn the tool started in or turns
 * later, with a JSON reply pending or an SSE reply open. Called with Requests directly, as those
 * runtimes do. A reply written before the watch begins leaves nothing scheduled behind it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { createHttpHandler } from "../../../src/transports/http/server.js";
import { buildTestServer, mcpHeaders, meta, request } from "./http-helpers.js";

const URL_ = "http://127.0.0.1/mcp";

/** A call of the "hold" tool, which waits for its signal; `stream`: progress first (SSE). */
function holdCall(signal: AbortSignal, stream = false): Request {
  const body = request("tools/call", { name: "hold", arguments: { stream } });
  if (stream) (body.params as { _meta: unknown })._meta = meta({ progressToken: 1 });
  return new Request(URL_, {
    method: "POST",
    headers: mcpHeaders(body),
    body: JSON.stringify(body),
    signal,
  });
}

/** Immediates pending right now (Node lists each one it has scheduled). */
function pendingImmediates(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === "Immediate").length;
}

function start(responseMode: "json" | "auto") {
  const { server, probe } = buildTestServer();
  return { handler: createHttpHandler(server, { legacy: false, responseMode }), probe };
}

describe("web handler: a client that leaves cancels its request", () => {
  const cases = [
    ["in the turn the tool started in", 0],
    ["turns later, while a JSON reply is pending", 3],
  ] as const;
  for (const [when, turns] of cases) {
    it(`leaving ${when} aborts the tool's signal`, async () => {
      const { handler, probe } = start("json");
      try {
        const client = new AbortController();
        const answered = handler.handle(holdCall(client.signal));
        await probe.holdStarted;
        for (let turn = 0; turn < turns; turn++) await nextTurn();
        client.abort();
        assert.ok((await probe.holdAborted) instanceof Error);
        await answered; // settles, though nobody is left to read it
      } finally {
        await handler.close();
      }
    });
  }

  it("leaving an open SSE reply aborts the tool's signal", async () => {
    const { handler, probe } = start("auto");
    try {
      const client = new AbortController();
      const response = await handler.handle(holdCall(client.signal, true));
      assert.equal(response.headers.get("content-type"), "text/event-stream");
      await probe.holdStarted;
      for (let turn = 0; turn < 3; turn++) await nextTurn();
      client.abort();
      assert.ok((await probe.holdAborted) instanceof Error);
      await response.body?.cancel();
    } finally {
      await handler.close();
    }
  });

  it("a reply written in the dispatching turn cancels the pending watch", async () => {
    const { handler } = start("json");
    try {
      const before = pendingImmediates();
      const body = request("tools/call", { name: "echo", arguments: { text: "hi" } });
      const headers = mcpHeaders(body);
      const call = new Request(URL_, { method: "POST", headers, body: JSON.stringify(body) });
      const response = await handler.handle(call);
      assert.equal(response.status, 200);
      // The watch of the client's signal was scheduled for a reply still pending; it was not.
      assert.equal(pendingImmediates(), before);
      await response.text();
    } finally {
      await handler.close();
    }
  });
});
