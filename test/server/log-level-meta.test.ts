/**
 * An unknown `io.modelcontextprotocol/logLevel` in a modern request's `_meta` is refused with
 * -32602 (2026-07-28 server/utilities/logging.mdx, Error Handling), not silently ignored.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { serveHttp } from "../../src/transports/http/node-adapter.js";
import { buildSpecRulesServer } from "../fixtures/spec-rules-server.js";
import { MODERN_META, RawStdioServer, type Wire } from "../hardening/raw-stdio.js";
import { json, meta, post, request } from "../transports/http/http-helpers.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/spec-rules-server.js", import.meta.url));
const LOG_LEVEL = "io.modelcontextprotocol/logLevel";

describe("per-request logLevel", () => {
  it("stdio: an unknown level is -32602, a known one is served", async () => {
    const server = new RawStdioServer(FIXTURE);
    try {
      for (const [id, level] of [
        [1, "verbose"],
        [2, "DEBUG"],
        [3, 7],
      ] as const) {
        await server.line(
          JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/list",
            params: { _meta: { ...MODERN_META, [LOG_LEVEL]: level } },
          }),
        );
        const reply: Wire = await server.replyTo(id);
        assert.equal(reply.error?.code, -32602, `level ${JSON.stringify(level)}`);
        assert.match(reply.error.message, /logLevel/);
      }
      await server.line(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 4,
          method: "tools/list",
          params: { _meta: { ...MODERN_META, [LOG_LEVEL]: "warning" } },
        }),
      );
      const served: Wire = await server.replyTo(4);
      assert.ok(Array.isArray(served.result.tools));
    } finally {
      await server.stop();
    }
  });

  it("HTTP: an unknown level is -32602", async () => {
    const served = await serveHttp(buildSpecRulesServer());
    try {
      const body = request("tools/list");
      (body.params as { _meta: unknown })._meta = meta({ [LOG_LEVEL]: "loud" });
      const reply = await json(await post(served.url, body));
      assert.equal(reply.error.code, -32602);
    } finally {
      await served.close();
    }
  });
});
