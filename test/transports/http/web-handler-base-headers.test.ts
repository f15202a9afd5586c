/**
 * The web handler's base (CORS) headers on the replies it builds as web Responses rather than
 * from pairs: 405 on the endpoint and on the health path, the authentication hook's own
 * Response, and a health answer. Called with Requests directly, as Bun.serve or a Worker would.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { McpServer } from "../../../src/server/index.js";
import { headerInit } from "../../../src/transports/http/exchange.js";
import { createHttpHandler } from "../../../src/transports/http/server.js";

const ORIGIN = "http://localhost:5173";
const BASE = "http://localhost/";

function handler() {
  const server = new McpServer({ serverInfo: { name: "base-headers", version: "1" } });
  return createHttpHandler(server, {
    legacy: false,
    cors: true,
    health: { check: () => ({ ok: true }) },
    authenticate: (request) =>
      request.headers.get("authorization") === null
        ? new Response("no", { status: 401, headers: { "WWW-Authenticate": "Bearer" } })
        : { user: "u" },
  });
}

describe("web handler: base headers on Responses it builds", () => {
  const web = handler();
  after(() => web.close());

  const send = (path: string, method: string) =>
    web.handle(new Request(new URL(path, BASE), { method, headers: { origin: ORIGIN } }));

  it("a 405 on the endpoint carries CORS and Allow", async () => {
    const response = await send("/mcp", "GET");
    assert.equal(response.status, 405);
    assert.equal(response.headers.get("allow"), "POST, OPTIONS");
    assert.equal(response.headers.get("access-control-allow-origin"), ORIGIN);
    assert.equal(response.headers.get("vary"), "Origin");
  });

  it("a 405 on the health path carries CORS and Allow", async () => {
    const response = await send("/healthz", "POST");
    assert.equal(response.status, 405);
    assert.equal(response.headers.get("allow"), "GET, HEAD");
    assert.equal(response.headers.get("access-control-allow-origin"), ORIGIN);
  });

  it("a health answer carries CORS", async () => {
    const response = await send("/healthz", "GET");
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("access-control-allow-origin"), ORIGIN);
    assert.deepEqual(await response.json(), { status: "ok" });
  });

  it("the hook's 401 keeps its own headers and gains CORS", async () => {
    const response = await send("/mcp", "POST");
    assert.equal(response.status, 401);
    assert.equal(response.headers.get("www-authenticate"), "Bearer");
    assert.equal(response.headers.get("access-control-allow-origin"), ORIGIN);
    assert.equal(await response.text(), "no");
  });
});

describe("web handler: header pairs handed to a Response", () => {
  it("as a record when every name is given once, as the pairs when one repeats", () => {
    const unique = [
      ["content-type", "application/json"],
      ["vary", "Origin"],
    ] as const;
    assert.deepEqual(headerInit(unique), { "content-type": "application/json", vary: "Origin" });
    const repeated = [
      ["set-cookie", "a=1"],
      ["set-cookie", "b=2"],
    ] as const;
    assert.equal(headerInit(repeated), repeated);
    const response = new Response(null, { headers: headerInit(repeated) });
    assert.deepEqual(response.headers.getSetCookie(), ["a=1", "b=2"]);
  });
});
