/**
 * A tool registered with `requiredClientCapabilities` is refused with -32021 before its handler
 * runs when the client lacks any of them: on Streamable HTTP that is the 400 the spec gives
 * -32021 (2026-07-28 basic/index.mdx), before any byte of a stream, in every response mode.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { McpServer } from "../../src/server/index.js";
import { serveHttp } from "../../src/transports/http/node-adapter.js";
import { buildSpecRulesServer } from "../fixtures/spec-rules-server.js";
import { MODERN_META, RawStdioServer, type Wire } from "../hardening/raw-stdio.js";
import { json, meta, post, readSse, request } from "../transports/http/http-helpers.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/spec-rules-server.js", import.meta.url));
const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const TOOL = "needs_client_features";

const DECLARED: Array<{ declared: JsonObject; missing: JsonObject | undefined }> = [
  { declared: {}, missing: { elicitation: {}, sampling: { tools: {} } } },
  { declared: { elicitation: {}, sampling: {} }, missing: { sampling: { tools: {} } } },
  // URL-only elicitation is not the form mode `{}` asks for.
  {
    declared: { elicitation: { url: {} }, sampling: { tools: {} } },
    missing: { elicitation: { form: {} } },
  },
  {
    declared: { elicitation: { form: {} }, sampling: { tools: {}, context: {} } },
    missing: undefined,
  },
];

function toolCall(declared: JsonObject): Record<string, unknown> {
  const body = request("tools/call", { name: TOOL, arguments: {} });
  (body.params as { _meta: unknown })._meta = meta({
    [CAPABILITIES]: declared,
    progressToken: "p",
  });
  return body;
}

describe("tools registered with requiredClientCapabilities", () => {
  for (const responseMode of ["auto", "sse"] as const) {
    it(`HTTP (${responseMode}): 400 and -32021 naming what is missing, before any stream`, async () => {
      const served = await serveHttp(buildSpecRulesServer(), { responseMode });
      try {
        for (const { declared, missing } of DECLARED) {
          const response = await post(served.url, toolCall(declared));
          if (missing) {
            assert.equal(response.status, 400, JSON.stringify(declared));
            assert.equal(response.headers.get("content-type"), "application/json");
            const reply = await json(response);
            assert.equal(reply.error.code, -32021);
            assert.deepEqual(reply.error.data, { requiredCapabilities: missing });
          } else {
            assert.equal(response.status, 200);
            const { messages } = await readSse(response);
            assert.equal(messages[0].method, "notifications/progress");
            assert.equal(messages.at(-1).result.content[0].text, "ran");
          }
        }
      } finally {
        await served.close();
      }
    });
  }

  it("stdio, modern and legacy: -32021 and the handler never runs", async () => {
    const server = new RawStdioServer(FIXTURE);
    try {
      const call = (id: number, params: JsonObject) =>
        server.line(
          JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: TOOL, arguments: {}, ...params },
          }),
        );
      await call(1, {
        _meta: { ...MODERN_META, progressToken: "m", [CAPABILITIES]: { elicitation: {} } },
      });
      const modern: Wire = await server.replyTo(1);
      assert.deepEqual(modern.error, {
        code: -32021,
        message: modern.error.message,
        data: { requiredCapabilities: { sampling: { tools: {} } } },
      });
      await server.line(
        JSON.stringify({
          jsonrpc: "2.0",
          id: "init",
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: { sampling: { tools: {} } },
            clientInfo: { name: "t", version: "1" },
          },
        }),
      );
      await server.replyTo("init");
      await server.line(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
      await call(2, { _meta: { progressToken: "l" } });
      const legacy: Wire = await server.replyTo(2);
      assert.equal(legacy.error.code, -32021);
      assert.deepEqual(legacy.error.data, { requiredCapabilities: { elicitation: {} } });
      assert.equal(
        server.replies.some((message) => message?.method === "notifications/progress"),
        false,
        "the handler ran",
      );
    } finally {
      await server.stop();
    }
  });

  it("context.requireClientCapabilities checks nested capabilities too", async () => {
    const server = new RawStdioServer(FIXTURE);
    try {
      for (const [id, declared] of [
        [1, { sampling: {} }],
        [2, { sampling: { tools: {} } }],
      ] as const) {
        await server.line(
          JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: {
              name: "requires_at_run_time",
              _meta: { ...MODERN_META, [CAPABILITIES]: declared },
            },
          }),
        );
      }
      const without: Wire = await server.replyTo(1);
      assert.equal(without.error?.code, -32021);
      assert.deepEqual(without.error.data, { requiredCapabilities: { sampling: { tools: {} } } });
      const withIt: Wire = await server.replyTo(2);
      assert.equal(withIt.result.content[0].text, "has it");
    } finally {
      await server.stop();
    }
  });

  it("refuses a requirement that is not shaped like capabilities at registration", () => {
    const server = new McpServer({ serverInfo: { name: "x", version: "1" } });
    for (const bad of [{ elicitation: true }, { sampling: { tools: "yes" } }, []]) {
      assert.throws(
        () =>
          server.tool({ name: "t" }, () => "", {
            requiredClientCapabilities: bad as unknown as JsonObject,
          }),
        /requiredClientCapabilities/,
      );
    }
  });
});
