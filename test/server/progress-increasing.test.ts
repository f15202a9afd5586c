/**
 * "The progress value MUST increase with each notification" (2026-07-28
 * basic/patterns/progress.mdx): context.progress drops a value that repeats or goes back (or is
 * not a number at all), per request, on every transport.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { serveHttp } from "../../src/transports/http/node-adapter.js";
import { buildSpecRulesServer } from "../fixtures/spec-rules-server.js";
import { MODERN_META, RawStdioServer, type Wire } from "../hardening/raw-stdio.js";
import { meta, post, readSse } from "../transports/http/http-helpers.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/spec-rules-server.js", import.meta.url));

function progressCall(id: number, token: string): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "progress_steps",
      arguments: {},
      _meta: { ...MODERN_META, progressToken: token },
    },
  };
}

const progressValues = (messages: Wire[], token: string) =>
  messages
    .filter((message) => message?.method === "notifications/progress")
    .filter((message) => message.params.progressToken === token)
    .map((message) => message.params.progress);

describe("progress values only increase", () => {
  it("stdio: repeated, smaller and NaN values are not sent", async () => {
    const server = new RawStdioServer(FIXTURE);
    try {
      await server.line(JSON.stringify(progressCall(1, "p1")));
      const reply: Wire = await server.replyTo(1);
      assert.equal(reply.result.content[0].text, "counted");
      assert.deepEqual(progressValues(server.replies, "p1"), [1, 2, 3]);
      // Per request: a second call starts afresh.
      await server.line(JSON.stringify(progressCall(2, "p2")));
      await server.replyTo(2);
      assert.deepEqual(progressValues(server.replies, "p2"), [1, 2, 3]);
    } finally {
      await server.stop();
    }
  });

  it("HTTP: the SSE reply carries only increasing values", async () => {
    const served = await serveHttp(buildSpecRulesServer());
    try {
      const body = progressCall(1, "h1");
      (body.params as { _meta: unknown })._meta = meta({ progressToken: "h1" });
      const response = await post(served.url, body);
      assert.equal(response.headers.get("content-type"), "text/event-stream");
      const { messages } = await readSse(response);
      assert.deepEqual(progressValues(messages, "h1"), [1, 2, 3]);
      assert.equal(messages.at(-1).result.content[0].text, "counted");
    } finally {
      await served.close();
    }
  });
});
