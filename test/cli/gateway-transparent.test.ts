/**
 * The gateway is transparent to what it does not own. A request's `_meta` reaches the child
 * whole but for the protocol's own keys (W3C trace context, an extension's key and a vendor's
 * key go through; the client's info is the gateway's), the HTTP client's extensions are
 * declared to a modern child, and the child's extensions and experimental capabilities are
 * offered to HTTP clients of both eras. Every pairing of child era and client era.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { McpClient } from "../../src/client/index.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { connectClient, fixture, type RunningGateway, startGateway } from "./gateway-run.js";
import { stop } from "./run-cli.js";

const CHILD_EXTENSIONS = {
  "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] },
  "com.example/vendor": { level: 2 },
};
const CHILD_EXPERIMENTAL = { "com.example/beta": { on: true } };
const CLIENT_EXTENSIONS = {
  "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] },
};

/** What the client puts in `_meta` that the gateway must pass on as it is. */
const PASSED_ON: JsonObject = {
  traceparent: "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
  tracestate: "vendorname=opaque",
  baggage: "userId=alice,region=eu",
  "com.example/request-tag": { team: "blue" },
  "io.modelcontextprotocol/ui": { viewId: "v1" },
};

async function echoedMeta(
  client: McpClient,
): Promise<{ meta: JsonObject; capabilities: JsonObject }> {
  const result = await client.callTool("echo_meta", {}, { _meta: PASSED_ON });
  const text = (result.content[0] as { text: string }).text;
  return JSON.parse(text) as { meta: JsonObject; capabilities: JsonObject };
}

for (const childEra of ["modern", "legacy"] as const) {
  describe(`mcpwire gateway: transparent to what it does not own (${childEra} child)`, () => {
    let running: RunningGateway;

    before(async () => {
      running = await startGateway([fixture("gateway-meta-server")], ["--era", childEra]);
    });
    after(() => stop(running.gateway));

    for (const clientEra of ["modern", "legacy"] as const) {
      it(`a ${clientEra} client's _meta reaches the child but for the protocol's own keys`, async () => {
        const { client } = await connectClient(running.url, clientEra, {
          capabilities: { extensions: CLIENT_EXTENSIONS },
        });
        try {
          const { meta, capabilities } = await echoedMeta(client);
          for (const [key, value] of Object.entries(PASSED_ON)) {
            assert.deepEqual(meta[key], value, `${key} reached the child`);
          }
          if (childEra === "modern") {
            // The protocol keys are the gateway's own, in the child's era.
            const info = meta["io.modelcontextprotocol/clientInfo"] as JsonObject;
            assert.equal(info.name, "mcpwire-gateway");
            assert.equal(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
            // The HTTP client's extensions are declared to the child for this request, and
            // nothing it did not declare (no tasks).
            assert.deepEqual(capabilities.extensions, CLIENT_EXTENSIONS);
          } else {
            assert.equal(meta["io.modelcontextprotocol/protocolVersion"], undefined);
            assert.equal(meta["io.modelcontextprotocol/clientInfo"], undefined);
          }
        } finally {
          await client.close();
        }
      });

      it(`offers the child's extensions to a ${clientEra} client`, async () => {
        const { client } = await connectClient(running.url, clientEra);
        try {
          const offered = client.serverCapabilities as JsonObject;
          assert.deepEqual(offered.extensions, CHILD_EXTENSIONS);
          assert.deepEqual(offered.experimental, CHILD_EXPERIMENTAL);
        } finally {
          await client.close();
        }
      });
    }
  });
}
