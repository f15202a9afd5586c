/**
 * Tool-enabled sampling (`tools` / `toolChoice`) goes only to clients that declared
 * `sampling.tools`, and `includeContext` other than "none" only to clients that declared
 * `sampling.context` (2026-07-28 and 2025-11-25 client/sampling.mdx, Capabilities). Otherwise
 * the call fails with -32021 whose data.requiredCapabilities names exactly what is missing.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { MODERN_META, RawStdioServer, type Wire } from "../hardening/raw-stdio.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/spec-rules-server.js", import.meta.url));
const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

interface Case {
  what: string;
  declared: JsonObject;
  request: JsonObject;
  /** The -32021 requiredCapabilities, or undefined when the request may go out. */
  missing: JsonObject | undefined;
}

const CASES: Case[] = [
  {
    what: "tools without sampling.tools",
    declared: { sampling: {} },
    request: { tools: [{ name: "t", inputSchema: { type: "object" } }] },
    missing: { sampling: { tools: {} } },
  },
  {
    what: "toolChoice without sampling.tools",
    declared: { sampling: { context: {} } },
    request: { toolChoice: { mode: "auto" } },
    missing: { sampling: { tools: {} } },
  },
  {
    what: "tools without any sampling",
    declared: {},
    request: { tools: [] },
    missing: { sampling: { tools: {} } },
  },
  {
    what: 'includeContext "thisServer" without sampling.context',
    declared: { sampling: { tools: {} } },
    request: { includeContext: "thisServer" },
    missing: { sampling: { context: {} } },
  },
  {
    what: "both, neither declared",
    declared: { sampling: {} },
    request: { tools: [], includeContext: "allServers" },
    missing: { sampling: { tools: {}, context: {} } },
  },
  {
    what: 'includeContext "none" with plain sampling',
    declared: { sampling: {} },
    request: { includeContext: "none" },
    missing: undefined,
  },
  {
    what: "tools and context, both declared",
    declared: { sampling: { tools: {}, context: {} } },
    request: { tools: [], includeContext: "thisServer" },
    missing: undefined,
  },
];

function sampleCall(id: number, request: JsonObject, meta?: JsonObject): string {
  const params: JsonObject = { name: "sample", arguments: { request } };
  if (meta) params._meta = meta;
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });
}

describe("sampling sub-capabilities", () => {
  it("modern (multi round-trip): -32021 naming what is missing, else an input request", async () => {
    const server = new RawStdioServer(FIXTURE);
    try {
      for (const [index, example] of CASES.entries()) {
        const id = index + 1;
        await server.line(
          sampleCall(id, example.request, { ...MODERN_META, [CAPABILITIES]: example.declared }),
        );
        const reply: Wire = await server.replyTo(id);
        if (example.missing) {
          assert.equal(reply.error?.code, -32021, example.what);
          assert.deepEqual(
            reply.error.data,
            { requiredCapabilities: example.missing },
            example.what,
          );
        } else {
          assert.equal(reply.result?.resultType, "input_required", example.what);
          const [asked] = Object.values(reply.result.inputRequests) as Wire[];
          assert.equal(asked.method, "sampling/createMessage");
        }
      }
      // input(): one sampling request lacks tools, the other context: both named at once.
      await server.line(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 100,
          method: "tools/call",
          params: {
            name: "sample_both",
            _meta: { ...MODERN_META, [CAPABILITIES]: { sampling: {} } },
          },
        }),
      );
      const both: Wire = await server.replyTo(100);
      assert.deepEqual(both.error?.data, {
        requiredCapabilities: { sampling: { tools: {}, context: {} } },
      });
    } finally {
      await server.stop();
    }
  });

  for (const example of CASES) {
    it(`legacy: ${example.what}`, async () => {
      const server = new RawStdioServer(FIXTURE);
      try {
        await server.line(
          JSON.stringify({
            jsonrpc: "2.0",
            id: "init",
            method: "initialize",
            params: {
              protocolVersion: "2025-11-25",
              capabilities: example.declared,
              clientInfo: { name: "t", version: "1" },
            },
          }),
        );
        await server.replyTo("init");
        await server.line(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
        await server.line(sampleCall(1, example.request));
        if (example.missing) {
          const reply: Wire = await server.replyTo(1);
          assert.equal(reply.error?.code, -32021);
          assert.deepEqual(reply.error.data, { requiredCapabilities: example.missing });
          assert.equal(
            server.replies.some((message) => message?.method === "sampling/createMessage"),
            false,
            "nothing was asked of the client",
          );
        } else {
          const asked: Wire = await server.reply(
            (message) => message?.method === "sampling/createMessage",
            "the sampling request",
          );
          await server.line(
            JSON.stringify({
              jsonrpc: "2.0",
              id: asked.id,
              result: { role: "assistant", content: { type: "text", text: "hi" }, model: "m" },
            }),
          );
          const reply: Wire = await server.replyTo(1);
          assert.match(reply.result.content[0].text, /"hi"/);
        }
      } finally {
        await server.stop();
      }
    });
  }
});
