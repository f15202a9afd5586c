/**
 * The 2026-07-28 Streamable HTTP status and header rules, over real HTTP on 127.0.0.1: methods,
 * content negotiation, limits, JSON-RPC error codes and their statuses, and the Server
 * Validation of MCP-Protocol-Version, Mcp-Method, Mcp-Name and Mcp-Param-*.
 */
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, it } from "node:test";
import { LEGACY_VERSIONS } from "../../../src/protocol/versions.js";
import { json, meta, post, request, startTestServer } from "./http-helpers.js";

type Served = Awaited<ReturnType<typeof startTestServer>>;

async function expectError(response: Response, status: number, code: number, id: unknown = 1) {
  assert.equal(response.status, status);
  assert.match(response.headers.get("content-type") ?? "", /application\/json/);
  const body = await json(response);
  assert.equal(body.jsonrpc, "2.0");
  assert.equal(body.id, id);
  assert.equal(body.error.code, code, body.error.message);
  return body;
}

describe("Streamable HTTP server: HTTP rules", () => {
  let served: Served;
  before(async () => {
    served = await startTestServer({ maxBodyBytes: 64 * 1024 });
  });
  after(() => served.close());

  it("answers a request with application/json and the client's id", async () => {
    const response = await post(served.url, request("tools/list", {}, "abc"));
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    const body = await json(response);
    assert.equal(body.id, "abc");
    assert.ok(body.result.tools.some((tool: { name: string }) => tool.name === "echo"));
  });

  it("accepts a notification with 202 and no body", async () => {
    const response = await post(served.url, {
      jsonrpc: "2.0",
      method: "notifications/roots/list_changed",
    });
    assert.equal(response.status, 202);
    assert.equal(await response.text(), "");
  });

  for (const method of ["GET", "DELETE", "PUT"]) {
    // The endpoint is dual-era by default; `legacy: false` makes it POST-only.
    it(`refuses ${method} with 405 and Allow: POST when legacy support is off`, async () => {
      const modernOnly = await startTestServer({ legacy: false });
      try {
        const response = await fetch(modernOnly.url, {
          method,
          headers: { Accept: "text/event-stream", "Mcp-Session-Id": "abc" },
        });
        assert.equal(response.status, 405);
        assert.equal(response.headers.get("allow"), "POST");
        await response.body?.cancel();
      } finally {
        await modernOnly.close();
      }
    });
  }

  it("refuses TRACE (a method fetch's Request cannot carry) with 405 and Allow, not 500", async () => {
    const status = await new Promise<{ code: number | undefined; allow: unknown }>(
      (resolve, reject) => {
        const outgoing = httpRequest(served.url, { method: "TRACE" }, (response) => {
          response.resume();
          resolve({ code: response.statusCode, allow: response.headers.allow });
        });
        outgoing.on("error", reject).end();
      },
    );
    assert.deepEqual(status, { code: 405, allow: "GET, POST, DELETE" });
  });

  it("refuses an Accept header without both media types with 406", async () => {
    for (const accept of ["application/json", "text/event-stream", null]) {
      const body = request("tools/list");
      const response = await post(served.url, body, { Accept: accept });
      assert.equal(response.status, 406, `Accept: ${accept}`);
      await response.body?.cancel();
    }
    const ok = await post(served.url, request("tools/list"), {
      Accept: "text/event-stream;q=0.9, application/json",
    });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  });

  it("refuses a non-JSON Content-Type with 415", async () => {
    const response = await post(served.url, request("tools/list"), {
      "Content-Type": "text/plain",
    });
    assert.equal(response.status, 415);
    await response.body?.cancel();
    const charset = await post(served.url, request("tools/list"), {
      "Content-Type": "application/json; charset=utf-8",
    });
    assert.equal(charset.status, 200);
    await charset.body?.cancel();
  });

  it("refuses a body over the limit with 413", async () => {
    const big = request("tools/call", { name: "echo", arguments: { text: "x".repeat(70_000) } });
    const response = await post(served.url, big);
    assert.equal(response.status, 413);
    await response.body?.cancel();
  });

  it("answers malformed JSON with 400 and -32700, id null", async () => {
    const response = await post(served.url, '{"jsonrpc":"2.0","id":1,"method":', {
      "Mcp-Method": "tools/list",
    });
    await expectError(response, 400, -32700, null);
  });

  it("answers a non-JSON-RPC body and a POSTed response with 400 and -32600", async () => {
    await expectError(await post(served.url, "[1,2]"), 400, -32600, null);
    await expectError(
      await post(served.url, { jsonrpc: "2.0", id: 1, result: {} }),
      400,
      -32600,
      null,
    );
  });

  it("answers an unknown or removed method with 404 and -32601", async () => {
    for (const method of ["unknown/method", "ping", "initialize", "logging/setLevel"]) {
      const response = await post(served.url, request(method));
      await expectError(response, 404, -32601);
    }
  });

  it("answers an unsupported version with 400 and -32022 listing the supported ones", async () => {
    const body = request("tools/list");
    (body.params as { _meta: Record<string, unknown> })._meta = meta({
      "io.modelcontextprotocol/protocolVersion": "v999.0.0",
    });
    const response = await post(served.url, body, { "MCP-Protocol-Version": "v999.0.0" });
    const error = await expectError(response, 400, -32022);
    // The endpoint is dual-era: its legacy versions are named too.
    assert.deepEqual(error.error.data.supported, ["2026-07-28", ...LEGACY_VERSIONS]);
    assert.equal(error.error.data.requested, "v999.0.0");
  });

  it("answers missing _meta fields with 400 and -32602", async () => {
    for (const broken of [
      undefined,
      { "io.modelcontextprotocol/clientCapabilities": {} },
      { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
    ]) {
      const body = { jsonrpc: "2.0", id: 1, method: "server/discover", params: {} as object };
      if (broken) body.params = { _meta: broken };
      await expectError(await post(served.url, body), 400, -32602);
    }
  });

  it("answers a missing client capability with 400 and -32021", async () => {
    served.mcp.tool({ name: "needs_sampling" }, (_args, context) => {
      context.requireClientCapabilities({ sampling: {} });
      return "never";
    });
    const response = await post(served.url, request("tools/call", { name: "needs_sampling" }));
    const body = await expectError(response, 400, -32021);
    assert.deepEqual(body.error.data.requiredCapabilities, { sampling: {} });
  });

  it("ignores Mcp-Session-Id and Last-Event-ID, and mints no session", async () => {
    const response = await post(served.url, request("tools/list"), {
      "Mcp-Session-Id": "stale-session",
      "Last-Event-ID": "42",
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("mcp-session-id"), null);
    await response.body?.cancel();
  });

  it("keeps a tool error a 200 result", async () => {
    const response = await post(served.url, request("tools/call", { name: "nope" }));
    assert.equal(response.status, 200);
    const body = await json(response);
    assert.equal(body.id, 1);
    assert.ok(body.error || body.result.isError);
  });
});

describe("Streamable HTTP server: Server Validation of mirrored headers", () => {
  let served: Served;
  before(async () => {
    served = await startTestServer();
  });
  after(() => served.close());

  const call = (args: Record<string, unknown>) =>
    request("tools/call", { name: "route", arguments: args }, 7);

  async function mismatch(body: Record<string, unknown>, headers: Record<string, string | null>) {
    const response = await post(served.url, body, headers);
    const error = await expectError(response, 400, -32020, body.id);
    assert.match(error.error.message, /Header mismatch/);
  }

  async function accepted(body: Record<string, unknown>, headers: Record<string, string | null>) {
    const response = await post(served.url, body, headers);
    const text = await response.text();
    assert.equal(response.status, 200, text);
    const parsed = JSON.parse(text);
    assert.ok(parsed.result, text);
    return parsed.result;
  }

  it("requires MCP-Protocol-Version equal to _meta", async () => {
    await mismatch(request("tools/list", {}, 7), { "MCP-Protocol-Version": null });
    await mismatch(request("tools/list", {}, 7), { "MCP-Protocol-Version": "2025-11-25" });
    const body = request("tools/list", {}, 7);
    (body.params as { _meta: Record<string, unknown> })._meta = meta({
      "io.modelcontextprotocol/protocolVersion": "v999.0.0",
    });
    await mismatch(body, {});
  });

  it("requires Mcp-Method equal to the method, case-sensitive value, any header-name case", async () => {
    await mismatch(request("tools/list", {}, 7), { "Mcp-Method": null });
    await mismatch(request("tools/list", {}, 7), { "Mcp-Method": "TOOLS/LIST" });
    await mismatch(request("tools/list", {}, 7), { "Mcp-Method": "prompts/list" });
    await accepted(request("tools/list", {}, 7), {
      "Mcp-Method": null,
      "mCP-mEtHoD": "tools/list",
    });
  });

  it("requires Mcp-Name for tools/call, prompts/get and resources/read", async () => {
    await mismatch(request("tools/call", { name: "echo", arguments: {} }, 7), { "Mcp-Name": null });
    await mismatch(request("tools/call", { name: "echo", arguments: {} }, 7), {
      "Mcp-Name": "steps",
    });
    await mismatch(request("prompts/get", { name: "hello", arguments: { who: "x" } }, 7), {
      "Mcp-Name": "Hello",
    });
    await mismatch(request("resources/read", { uri: "mem://note" }, 7), {
      "Mcp-Name": "mem://other",
    });
    await accepted(request("resources/read", { uri: "mem://note" }, 7), {});
    await accepted(request("prompts/get", { name: "hello", arguments: { who: "x" } }, 7), {});
  });

  it("accepts Mcp-Name with surrounding whitespace", async () => {
    const result = await accepted(
      request("tools/call", { name: "echo", arguments: { text: "a" } }, 7),
      {
        "Mcp-Name": "  echo \t",
      },
    );
    assert.equal(result.content[0].text, "a");
  });

  it("decodes a base64 Mcp-Name and refuses a malformed one", async () => {
    const body = request("resources/read", { uri: "mem://ünï code" }, 7);
    const encoded = `=?base64?${Buffer.from("mem://ünï code").toString("base64")}?=`;
    const result = await accepted(body, { "Mcp-Name": encoded });
    assert.equal(result.contents[0].text, "wide");
    await accepted(request("tools/call", { name: "echo", arguments: { text: "b" } }, 7), {
      "Mcp-Name": "=?base64?ZWNobw==?=",
    });
    for (const bad of ["=?base64?ZWNobw?=", "=?base64?ZWN*bw==?=", "=?base64?ZWNobw=?="]) {
      await mismatch(request("tools/call", { name: "echo", arguments: { text: "b" } }, 7), {
        "Mcp-Name": bad,
      });
    }
    // Without both prefix and suffix a value is literal, and "=?base64?ZWNobw==" is not "echo".
    await mismatch(request("tools/call", { name: "echo", arguments: { text: "b" } }, 7), {
      "Mcp-Name": "=?base64?ZWNobw==",
    });
  });

  it("checks Mcp-Param-* against x-mcp-header arguments", async () => {
    const args = { region: "us-west1", count: 42, flag: true, place: { zone: "b" } };
    const good = {
      "Mcp-Param-Region": "us-west1",
      "Mcp-Param-Count": "42",
      "Mcp-Param-Flag": "true",
      "Mcp-Param-Zone": "b",
    };
    const result = await accepted(call(args), good);
    assert.deepEqual(JSON.parse(result.content[0].text), args);
    // Header names are case-insensitive; numbers compare numerically.
    await accepted(call(args), {
      ...good,
      "Mcp-Param-Region": null,
      "mcp-param-region": "us-west1",
      "Mcp-Param-Count": "42.0",
    });
    await mismatch(call(args), { ...good, "Mcp-Param-Region": "eu-west1" });
    await mismatch(call(args), { ...good, "Mcp-Param-Region": null });
    await mismatch(call(args), { ...good, "Mcp-Param-Count": "41" });
    await mismatch(call(args), { ...good, "Mcp-Param-Count": "42abc" });
    await mismatch(call(args), { ...good, "Mcp-Param-Flag": "TRUE" });
    await mismatch(call(args), { ...good, "Mcp-Param-Zone": null });
  });

  it("expects no Mcp-Param-* header for a null or absent argument", async () => {
    await accepted(call({ place: { zone: null } }), {});
    await accepted(call({}), {});
    await mismatch(call({}), { "Mcp-Param-Region": "us-west1" });
  });

  it("decodes base64 Mcp-Param-* values and refuses bad padding or characters", async () => {
    const text = "Hello, 世界";
    const encoded = `=?base64?${Buffer.from(text).toString("base64")}?=`;
    assert.equal(encoded, "=?base64?SGVsbG8sIOS4lueVjA==?=");
    await accepted(call({ region: text }), { "Mcp-Param-Region": encoded });
    await accepted(call({ region: " padded " }), { "Mcp-Param-Region": "=?base64?IHBhZGRlZCA=?=" });
    await accepted(call({ region: "Hello" }), { "Mcp-Param-Region": "=?base64?SGVsbG8=?=" });
    await mismatch(call({ region: "Hello" }), { "Mcp-Param-Region": "=?base64?SGVsbG8?=" });
    await mismatch(call({ region: "Hello" }), { "Mcp-Param-Region": "=?base64?SGVs#bG8=?=" });
    // Literal when the sentinel is incomplete.
    await accepted(call({ region: "=?base64?SGVsbG8=" }), {
      "Mcp-Param-Region": "=?base64?SGVsbG8=",
    });
  });
});
