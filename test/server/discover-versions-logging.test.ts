/**
 * server/discover on the wire: a server that can log declares `logging` in the modern era too
 * (2026-07-28 server/utilities/logging.mdx), and a dual-era server lists its legacy versions
 * beside the modern one, in supportedVersions and in -32022's data.supported
 * (basic/versioning.mdx), so that a client learns a legacy fallback exists.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { LEGACY_VERSIONS, MODERN_VERSIONS } from "../../src/protocol/versions.js";
import { serveHttp } from "../../src/transports/http/node-adapter.js";
import { buildSpecRulesServer } from "../fixtures/spec-rules-server.js";
import { MODERN_META, RawStdioServer, type Wire } from "../hardening/raw-stdio.js";
import { json, meta, post, request } from "../transports/http/http-helpers.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/spec-rules-server.js", import.meta.url));
const DUAL = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

describe("server/discover: logging capability and every served version", () => {
  it("stdio: discover declares logging and lists modern and legacy versions; -32022 too", async () => {
    const server = new RawStdioServer(FIXTURE);
    try {
      await server.line(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "server/discover",
          params: { _meta: MODERN_META },
        }),
      );
      const discovered: Wire = await server.replyTo(1);
      assert.deepEqual(discovered.result.supportedVersions, DUAL);
      assert.deepEqual(discovered.result.capabilities.logging, {});

      const wrongVersion = {
        ...MODERN_META,
        "io.modelcontextprotocol/protocolVersion": "1900-01-01",
      };
      await server.line(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/list",
          params: { _meta: wrongVersion },
        }),
      );
      const refused: Wire = await server.replyTo(2);
      assert.equal(refused.error.code, -32022);
      assert.deepEqual(refused.error.data, { supported: DUAL, requested: "1900-01-01" });
    } finally {
      await server.stop();
    }
  });

  it("HTTP: the same, and an endpoint with legacy turned off names only what it serves", async () => {
    const dual = await serveHttp(buildSpecRulesServer());
    const modernOnlyEndpoint = await serveHttp(buildSpecRulesServer(), { legacy: false });
    const modernOnlyServer = await serveHttp(buildSpecRulesServer({ eras: "modern" }));
    try {
      const discovered = await json(await post(dual.url, request("server/discover")));
      assert.deepEqual(discovered.result.supportedVersions, DUAL);
      assert.deepEqual(discovered.result.capabilities.logging, {});

      const unsupported = (url: string) => {
        const body = request("tools/list");
        (body.params as { _meta: unknown })._meta = meta({
          "io.modelcontextprotocol/protocolVersion": "1900-01-01",
        });
        return post(url, body, { "MCP-Protocol-Version": "1900-01-01" });
      };
      const refused = await unsupported(dual.url);
      assert.equal(refused.status, 400);
      assert.deepEqual((await json(refused)).error.data.supported, DUAL);

      const modernOnly = await unsupported(modernOnlyEndpoint.url);
      assert.deepEqual((await json(modernOnly)).error.data.supported, [...MODERN_VERSIONS]);
      const modernOnlyDiscover = await json(
        await post(modernOnlyEndpoint.url, request("server/discover")),
      );
      assert.deepEqual(modernOnlyDiscover.result.supportedVersions, [...MODERN_VERSIONS]);

      const modernServer = await json(await post(modernOnlyServer.url, request("server/discover")));
      assert.deepEqual(modernServer.result.supportedVersions, [...MODERN_VERSIONS]);
    } finally {
      await Promise.all([dual.close(), modernOnlyEndpoint.close(), modernOnlyServer.close()]);
    }
  });
});
