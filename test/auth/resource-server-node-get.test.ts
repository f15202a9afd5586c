/**
 * nodeGet, the fetch a protected resource uses by default for its issuer's metadata and JWKS:
 * GETs over node:http with the rules of the fetch it replaces (loopback-only plain http, no
 * redirects, the caller's abort signal), a body cap, and no use of the global fetch at all.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { jwtAccessTokens } from "../../src/auth/index.js";
import { MAX_BODY_BYTES, nodeGet } from "../../src/auth/resource-server/node-get.js";
import { startJwtIssuer } from "./jwt-issuer.js";

describe("nodeGet", () => {
  let server: Server;
  let origin = "";
  const seen: IncomingHttpHeaders[] = [];
  before(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      if (req.url === "/doc") {
        res.writeHead(200, { "Content-Type": "application/json", "X-Extra": "yes" });
        res.end(JSON.stringify({ hello: "world" }));
      } else if (req.url === "/moved") {
        res.writeHead(302, { Location: "/doc" }).end();
      } else if (req.url === "/empty") {
        res.writeHead(204).end();
      } else if (req.url === "/huge") {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(Buffer.alloc(MAX_BODY_BYTES + 1, 0x20));
      } else if (req.url === "/cut") {
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "100" });
        res.write('{"keys":', () => res.socket?.destroy());
      } else if (req.url === "/silent") {
        // Never answers: the caller's signal has to end it.
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("GETs a document: status, headers and body, with the caller's headers sent", async () => {
    const response = await nodeGet(new URL(`${origin}/doc`), {
      method: "GET",
      headers: new Headers({ Accept: "application/json" }),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-extra"), "yes");
    assert.deepEqual(await response.json(), { hello: "world" });
    assert.equal(seen.at(-1)?.accept, "application/json");
  });

  it("hands a redirect back instead of following it", async () => {
    const response = await nodeGet(`${origin}/moved`, { redirect: "manual" });
    assert.equal(response.status, 302);
    assert.equal(response.headers.get("location"), "/doc");
  });

  it("answers a 204 with no body", async () => {
    const response = await nodeGet(`${origin}/empty`);
    assert.equal(response.status, 204);
    assert.equal(response.body, null);
  });

  it("refuses plain http to a host that is not loopback, and anything but GET", async () => {
    await assert.rejects(nodeGet("http://example.com/jwks"), /not https/);
    await assert.rejects(nodeGet("http://10.0.0.1/jwks"), /not https/);
    await assert.rejects(nodeGet(`${origin}/doc`, { method: "POST" }), /GET only/);
  });

  it("rejects (and nothing goes unhandled) when the connection drops in the middle of the body", async () => {
    await assert.rejects(nodeGet(`${origin}/cut`));
  });

  it("refuses a body over the cap", async () => {
    await assert.rejects(nodeGet(`${origin}/huge`), /over \d+ bytes/);
  });

  it("stops when the caller's signal aborts, with the signal's reason (a TimeoutError)", async () => {
    await assert.rejects(nodeGet(`${origin}/silent`, { signal: AbortSignal.timeout(50) }), {
      name: "TimeoutError",
    });
    await assert.rejects(nodeGet(`${origin}/doc`, { signal: AbortSignal.abort() }), {
      name: "AbortError",
    });
  });
});

describe("jwtAccessTokens without a fetch", () => {
  it("reads the issuer's metadata and JWKS over node:http, never through the global fetch", async () => {
    const as = await startJwtIssuer();
    const global = globalThis.fetch;
    let globalCalls = 0;
    globalThis.fetch = (...args: Parameters<typeof fetch>) => {
      globalCalls++;
      return global(...args);
    };
    try {
      const resource = "http://127.0.0.1:1/mcp";
      const verified = await jwtAccessTokens({ issuer: as.issuer }).verify(
        await as.mint(resource),
        resource,
      );
      assert.equal(verified.subject, "user-1");
      assert.equal(as.hits.get("/.well-known/oauth-authorization-server"), 1);
      assert.equal(as.hits.get("/jwks"), 1);
      assert.equal(globalCalls, 0);
    } finally {
      globalThis.fetch = global;
      await as.close();
    }
  });
});
