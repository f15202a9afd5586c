/**
 * Security defaults of the modern HTTP server: Host/Origin checks against DNS rebinding (fail
 * closed), CORS when turned on, and the authentication hook.
 */
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { describe, it } from "node:test";
import { json, mcpHeaders, post, request, startTestServer } from "./http-helpers.js";

interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A POST through node:http, which sends the Host header we give it. */
function rawPost(url: string, headers: Record<string, string>, body: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const client = httpRequest(url, { method: "POST", headers }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
      );
    });
    client.on("error", reject);
    client.end(body);
  });
}

function discover(url: string, extra: Record<string, string>): Promise<RawReply> {
  const body = request("server/discover");
  return rawPost(url, { ...mcpHeaders(body), ...extra }, JSON.stringify(body));
}

describe("Streamable HTTP server: Host and Origin", () => {
  it("accepts loopback names on any port and refuses others with 403 and an id-less error", async () => {
    const served = await startTestServer();
    try {
      for (const host of [
        "localhost",
        "localhost:1234",
        "127.0.0.1:9",
        "[::1]:8080",
        "LOCALHOST",
      ]) {
        const reply = await discover(served.url, { Host: host });
        assert.equal(reply.status, 200, `Host: ${host}`);
      }
      for (const host of [
        "evil.example.com",
        "evil.example.com:80",
        "127.0.0.1.evil.com",
        "0.0.0.0",
      ]) {
        const reply = await discover(served.url, { Host: host });
        assert.equal(reply.status, 403, `Host: ${host}`);
        const body = JSON.parse(reply.body);
        assert.equal(body.jsonrpc, "2.0");
        assert.equal(body.id, null);
        assert.equal(typeof body.error.code, "number");
      }
      for (const origin of ["http://localhost:3000", "https://127.0.0.1", "http://[::1]:5"]) {
        const reply = await discover(served.url, { Origin: origin });
        assert.equal(reply.status, 200, `Origin: ${origin}`);
      }
      for (const origin of [
        "http://evil.example.com",
        "null",
        "file://",
        "http://localhost.evil.com",
      ]) {
        const reply = await discover(served.url, { Origin: origin });
        assert.equal(reply.status, 403, `Origin: ${origin}`);
      }
      // The conformance probe: both rebinding headers at once.
      const both = await discover(served.url, {
        Host: "evil.example.com",
        Origin: "http://evil.example.com",
      });
      assert.equal(both.status, 403);
    } finally {
      await served.close();
    }
  });

  it("checks Origin even on refused methods and preflights", async () => {
    const served = await startTestServer();
    try {
      const response = await fetch(served.url, { headers: { Origin: "http://evil.example.com" } });
      assert.equal(response.status, 403);
      await response.body?.cancel();
    } finally {
      await served.close();
    }
  });

  it("uses configured allowlists, and an empty list allows nothing", async () => {
    const served = await startTestServer({
      allowedHosts: ["mcp.example.com", "api.example.com:8443"],
      allowedOrigins: ["https://app.example.com"],
    });
    try {
      assert.equal((await discover(served.url, { Host: "mcp.example.com:99" })).status, 200);
      assert.equal((await discover(served.url, { Host: "api.example.com:8443" })).status, 200);
      assert.equal((await discover(served.url, { Host: "api.example.com:8444" })).status, 403);
      assert.equal((await discover(served.url, { Host: "localhost" })).status, 403);
      const withOrigin = { Host: "mcp.example.com" };
      assert.equal(
        (await discover(served.url, { ...withOrigin, Origin: "https://app.example.com" })).status,
        200,
      );
      assert.equal(
        (await discover(served.url, { ...withOrigin, Origin: "http://app.example.com" })).status,
        403,
      );
    } finally {
      await served.close();
    }
    const closed = await startTestServer({ allowedHosts: [], allowedOrigins: [] });
    try {
      assert.equal((await discover(closed.url, {})).status, 403);
    } finally {
      await closed.close();
    }
  });
});

describe("Streamable HTTP server: CORS", () => {
  it("is off by default: no CORS headers, OPTIONS is 405", async () => {
    const served = await startTestServer();
    try {
      const response = await post(served.url, request("tools/list"), {
        Origin: "http://localhost:5173",
      });
      assert.equal(response.headers.get("access-control-allow-origin"), null);
      await response.body?.cancel();
      const preflight = await fetch(served.url, {
        method: "OPTIONS",
        headers: { Origin: "http://localhost:5173", "Access-Control-Request-Method": "POST" },
      });
      assert.equal(preflight.status, 405);
    } finally {
      await served.close();
    }
  });

  it("when on, answers preflight and allows and exposes the MCP headers", async () => {
    const served = await startTestServer({ cors: true });
    try {
      const origin = "http://localhost:5173";
      const preflight = await fetch(served.url, {
        method: "OPTIONS",
        headers: {
          Origin: origin,
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers":
            "content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region",
        },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get("access-control-allow-origin"), origin);
      assert.match(preflight.headers.get("access-control-allow-methods") ?? "", /POST/);
      const allowed = (preflight.headers.get("access-control-allow-headers") ?? "").toLowerCase();
      for (const name of [
        "mcp-protocol-version",
        "mcp-method",
        "mcp-name",
        "mcp-param-region",
        "mcp-session-id",
        "last-event-id",
      ]) {
        assert.ok(allowed.includes(name), `${name} allowed: ${allowed}`);
      }
      const response = await post(served.url, request("tools/list"), { Origin: origin });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("access-control-allow-origin"), origin);
      const exposed = (response.headers.get("access-control-expose-headers") ?? "").toLowerCase();
      for (const name of ["mcp-protocol-version", "mcp-session-id", "mcp-method", "mcp-name"]) {
        assert.ok(exposed.includes(name), `${name} exposed: ${exposed}`);
      }
      await response.body?.cancel();
      // A disallowed origin gets no CORS pass, preflight or not.
      const evil = await fetch(served.url, {
        method: "OPTIONS",
        headers: { Origin: "https://evil.example.com", "Access-Control-Request-Method": "POST" },
      });
      assert.equal(evil.status, 403);
      await evil.body?.cancel();
    } finally {
      await served.close();
    }
  });
});

describe("Streamable HTTP server: authentication hook", () => {
  it("a Response from the hook is sent as is; a principal reaches the handler", async () => {
    const served = await startTestServer({
      authenticate(request) {
        const authorization = request.headers.get("authorization");
        if (authorization !== "Bearer good-token") {
          return new Response(null, {
            status: 401,
            headers: { "WWW-Authenticate": 'Bearer resource_metadata="http://localhost/prm"' },
          });
        }
        return { subject: "alice" };
      },
    });
    try {
      const body = request("tools/call", { name: "whoami" });
      const refused = await post(served.url, body);
      assert.equal(refused.status, 401);
      assert.match(refused.headers.get("www-authenticate") ?? "", /^Bearer resource_metadata=/);
      await refused.body?.cancel();
      assert.equal(served.probe.principals.length, 0, "the handler never ran");

      const reply = await json(
        await post(served.url, body, { Authorization: "Bearer good-token" }),
      );
      assert.deepEqual(JSON.parse(reply.result.content[0].text), { subject: "alice" });
      assert.deepEqual(served.probe.principals, [{ subject: "alice" }]);
    } finally {
      await served.close();
    }
  });
});
