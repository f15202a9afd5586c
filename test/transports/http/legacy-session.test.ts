/**
 * Legacy Streamable HTTP sessions (2025-03-26 … 2025-11-25) on the dual-era endpoint, over real
 * HTTP on 127.0.0.1: initialize mints the session, the session and version headers are checked,
 * DELETE and idle expiry end it, and Host/Origin/CORS rules apply to all of it.
 */
import assert from "node:assert/strict";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { after, before, describe, it } from "node:test";
import { json, post, request } from "./http-helpers.js";
import {
  call,
  initializeBody,
  type LegacyServed,
  RawSession,
  startLegacyServer,
} from "./legacy-helpers.js";

describe("legacy Streamable HTTP: session lifecycle", () => {
  let served: LegacyServed;
  before(async () => {
    served = await startLegacyServer();
  });
  after(() => served.close());

  it("initialize mints a random visible-ASCII Mcp-Session-Id and negotiates the version", async () => {
    const first = new RawSession(served.url);
    const result = await first.open();
    assert.equal(result.result.protocolVersion, "2025-11-25");
    assert.equal(result.result.serverInfo.name, "http-test");
    assert.match(first.sessionId ?? "", /^[\x21-\x7e]{16,}$/);
    const second = new RawSession(served.url);
    await second.open();
    assert.notEqual(first.sessionId, second.sessionId);
    // An older client gets its own version back.
    const old = new RawSession(served.url, "2025-03-26");
    assert.equal((await old.open()).result.protocolVersion, "2025-03-26");
  });

  it("serves requests of the session, and answers notifications with 202", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const response = await session.post({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("mcp-session-id"), session.sessionId);
    const body = await json(response);
    assert.ok(body.result.tools.some((tool: { name: string }) => tool.name === "echo"));
    // Legacy-only methods work here.
    assert.deepEqual(
      (await json(await session.post({ jsonrpc: "2.0", id: 2, method: "ping" }))).result,
      {},
    );
    const note = await session.post({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
    assert.equal(note.status, 202);
    assert.equal(await note.text(), "");
  });

  it("a JSON-RPC error reply in a session is HTTP 200 (404 would tell the client the session is gone)", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const unknown = await session.post({ jsonrpc: "2.0", id: 1, method: "no/such/method" });
    assert.equal(unknown.status, 200);
    assert.equal((await json(unknown)).error.code, -32601);
    const badArgs = await session.post({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "echo", arguments: { text: 42 } },
    });
    assert.equal(badArgs.status, 200);
    assert.equal((await json(badArgs)).id, 2);
    // The session still serves.
    const list = await session.post({ jsonrpc: "2.0", id: 3, method: "tools/list" });
    assert.equal(list.status, 200);
  });

  it("refuses a request without Mcp-Session-Id with 400 and an unknown one with 404", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const missing = await session.post(call("echo", { text: "x" }), { "Mcp-Session-Id": null });
    assert.equal(missing.status, 400);
    assert.match((await json(missing)).error.message, /Mcp-Session-Id/);
    const unknown = await session.post(call("echo", { text: "x" }), {
      "Mcp-Session-Id": "no-such-session",
    });
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
    const unknownGet = await session.get(undefined, { "Mcp-Session-Id": "no-such-session" });
    assert.equal(unknownGet.status, 404);
    await unknownGet.body?.cancel();
  });

  it("checks MCP-Protocol-Version against the negotiated version (absent → accepted)", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const body = { jsonrpc: "2.0", id: 3, method: "ping" };
    const other = await session.post(body, { "MCP-Protocol-Version": "2025-06-18" });
    assert.equal(other.status, 400);
    await other.body?.cancel();
    const bogus = await session.post(body, { "MCP-Protocol-Version": "1999-01-01" });
    assert.equal(bogus.status, 400);
    await bogus.body?.cancel();
    // No header: the server assumes 2025-03-26 and has the negotiated version anyway.
    const absent = await session.post(body, { "MCP-Protocol-Version": null });
    assert.equal(absent.status, 200);
    assert.deepEqual((await json(absent)).result, {});
  });

  it("refuses a request id that is still in flight in the session", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const gate = served.gate();
    const slow = session.post(call("gated", {}, 9));
    await gate.waiting;
    const duplicate = await session.post(call("echo", { text: "x" }, 9));
    assert.equal(duplicate.status, 400);
    await duplicate.body?.cancel();
    gate.release();
    const done = await json(await slow);
    assert.equal(done.result.content[0].text, "released");
  });

  it("DELETE ends the session: later requests get 404", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const deleted = await session.delete();
    assert.equal(deleted.status, 204);
    const after = await session.post({ jsonrpc: "2.0", id: 4, method: "ping" });
    assert.equal(after.status, 404);
    await after.body?.cancel();
    const again = await session.delete();
    assert.equal(again.status, 404);
    await again.body?.cancel();
  });

  it("a failed initialize leaves no session behind", async () => {
    const body = initializeBody();
    (body.params as Record<string, unknown>).protocolVersion = 42;
    const response = await fetch(served.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(body),
    });
    assert.equal(response.headers.get("mcp-session-id"), null);
    const answer = await json(response);
    assert.equal(answer.error.code, -32602);
  });

  it("allows GET, POST and DELETE; anything else is 405", async () => {
    const response = await fetch(served.url, { method: "PUT" });
    assert.equal(response.status, 405);
    assert.equal(response.headers.get("allow"), "GET, POST, DELETE");
    await response.body?.cancel();
  });
});

describe("legacy Streamable HTTP: idle expiry", () => {
  it("expires a session nobody uses", async () => {
    const served = await startLegacyServer({ legacy: { sessionIdleMs: 150 } });
    try {
      const session = new RawSession(served.url);
      await session.open();
      // Any request would count as use; so wait well past the idle time, then ask once.
      await new Promise((resolve) => setTimeout(resolve, 400));
      const response = await session.post({ jsonrpc: "2.0", id: 1, method: "ping" });
      assert.equal(response.status, 404);
      await response.body?.cancel();
    } finally {
      await served.close();
    }
  });

  it("does not expire a session while its GET stream is connected", async () => {
    const served = await startLegacyServer({ legacy: { sessionIdleMs: 150 } });
    try {
      const session = new RawSession(served.url);
      await session.open();
      const stream = await session.get();
      assert.equal(stream.status, 200);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const response = await session.post({ jsonrpc: "2.0", id: 1, method: "ping" });
      assert.equal(response.status, 200);
      await response.body?.cancel();
      await stream.body?.cancel();
    } finally {
      await served.close();
    }
  });
});

describe("legacy Streamable HTTP: dual era on one endpoint", () => {
  let served: LegacyServed;
  before(async () => {
    served = await startLegacyServer();
  });
  after(() => served.close());

  it("serves a modern request and a legacy session at the same time", async () => {
    const session = new RawSession(served.url);
    await session.open();
    const gate = served.gate();
    const legacyCall = session.post(call("gated", {}, 1));
    await gate.waiting;
    // Meanwhile a modern client, statelessly, with the same JSON-RPC id.
    const modern = await post(
      served.url,
      request("tools/call", { name: "echo", arguments: { text: "now" } }, 1),
    );
    assert.equal(modern.status, 200);
    assert.equal(modern.headers.get("mcp-session-id"), null);
    const modernBody = await json(modern);
    assert.equal(modernBody.result.content[0].text, "now");
    assert.equal(modernBody.result.resultType, "complete");
    gate.release();
    const legacyBody = await json(await legacyCall);
    assert.equal(legacyBody.result.content[0].text, "released");
    assert.equal(legacyBody.result.resultType, undefined);
  });

  it("keeps modern rules for modern-shaped requests (initialize there is -32601)", async () => {
    const response = await post(served.url, request("initialize"));
    assert.equal(response.status, 404);
    assert.equal((await json(response)).error.code, -32601);
  });

  it("a legacy-looking request without a session is 400, not a modern error", async () => {
    const response = await fetch(served.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(response.status, 400);
    assert.match((await json(response)).error.message, /Mcp-Session-Id/);
  });
});

/** initialize through node:http, which sends the Host header we give it. */
function rawInitialize(
  url: string,
  extra: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const headers = {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...extra,
    };
    const client = httpRequest(url, { method: "POST", headers }, (response) => {
      response.resume();
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers }),
      );
    });
    client.on("error", reject);
    client.end(JSON.stringify(initializeBody()));
  });
}

describe("legacy Streamable HTTP: Host, Origin and CORS", () => {
  it("refuses initialize from a rebinding Host or a foreign Origin with 403", async () => {
    const served = await startLegacyServer();
    try {
      // The conformance probe: Host and Origin of a rebinding attacker, then the real host.
      const evil = await rawInitialize(served.url, {
        Host: "evil.example.com",
        Origin: "http://evil.example.com",
      });
      assert.equal(evil.status, 403);
      assert.equal(evil.headers["mcp-session-id"], undefined);
      assert.equal((await rawInitialize(served.url, { Host: "evil.example.com" })).status, 403);
      const good = await rawInitialize(served.url, {});
      assert.equal(good.status, 200);
      assert.ok(good.headers["mcp-session-id"]);
      const session = new RawSession(served.url);
      await session.open();
      const get = await session.get(undefined, { Origin: "http://evil.example.com" });
      assert.equal(get.status, 403);
      await get.body?.cancel();
    } finally {
      await served.close();
    }
  });

  it("exposes Mcp-Session-Id to browsers and allows GET and DELETE in preflight", async () => {
    const served = await startLegacyServer({ cors: true });
    try {
      const origin = "http://localhost:5173";
      const response = await fetch(served.url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          Origin: origin,
        },
        body: JSON.stringify(initializeBody()),
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("access-control-allow-origin"), origin);
      assert.match(response.headers.get("access-control-expose-headers") ?? "", /Mcp-Session-Id/);
      assert.ok(response.headers.get("mcp-session-id"));
      await response.body?.cancel();
      const preflight = await fetch(served.url, {
        method: "OPTIONS",
        headers: {
          Origin: origin,
          "Access-Control-Request-Method": "DELETE",
          "Access-Control-Request-Headers": "mcp-session-id, last-event-id",
        },
      });
      assert.equal(preflight.status, 204);
      assert.equal(
        preflight.headers.get("access-control-allow-methods"),
        "GET, POST, DELETE, OPTIONS",
      );
      assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /Last-Event-ID/);
    } finally {
      await served.close();
    }
  });
});
