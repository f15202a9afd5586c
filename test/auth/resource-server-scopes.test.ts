/**
 * Scopes a request needs (a tool's, registered with `scopes`; a method's; every request's) are
 * checked before anything runs, and a token without them gets HTTP 403 insufficient_scope naming
 * all of them: modern requests through both front doors (node:http fast path and the
 * web-standard core), an SSE response mode, and legacy sessions alike.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { protectResource } from "../../src/auth/index.js";
import { createHttpHandler } from "../../src/transports/http/server.js";
import { json, mcpHeaders, request } from "../transports/http/http-helpers.js";
import { initializeBody, LEGACY_VERSION } from "../transports/http/legacy-helpers.js";
import { type JwtIssuer, startJwtIssuer } from "./jwt-issuer.js";
import {
  buildProtectedServer,
  callTool,
  challengeOf,
  metadataUrlOf,
  type Protected,
  startProtected,
} from "./resource-server-fixtures.js";

let as: JwtIssuer;
before(async () => {
  as = await startJwtIssuer();
});
after(() => as.close());

function assertInsufficient(response: Response, scopes: string, url: string): void {
  assert.equal(response.status, 403);
  const challenge = challengeOf(response);
  assert.equal(challenge.error, "insufficient_scope");
  assert.equal(challenge.scope, scopes);
  assert.equal(challenge.resource_metadata, metadataUrlOf(url));
}

describe("a tool's scopes", () => {
  let rs: Protected;
  let writes = 0;
  before(async () => {
    rs = await startProtected({ issuer: as.issuer });
    rs.mcp.tool({ name: "count_writes", inputSchema: { type: "object" } }, () => `${++writes}`, {
      scopes: ["files:write"],
    });
  });
  after(() => rs.close());

  it("a token without them gets 403 naming every scope the tool needs, and the handler never runs", async () => {
    const token = await as.mint(rs.url, { claims: { scope: "files:read" } });
    assertInsufficient(
      await callTool(rs.url, "write_file", `Bearer ${token}`),
      "files:read files:write",
      rs.url,
    );
    assertInsufficient(
      await callTool(rs.url, "count_writes", `Bearer ${token}`),
      "files:write",
      rs.url,
    );
    assert.equal(writes, 0);
  });

  it("a token with them calls the tool", async () => {
    const token = await as.mint(rs.url, { claims: { scope: "files:read files:write" } });
    const response = await callTool(rs.url, "write_file", `Bearer ${token}`);
    assert.equal(response.status, 200);
    assert.equal((await json(response)).result.content[0].text, "written");
  });

  it("tools without scopes need none", async () => {
    const token = await as.mint(rs.url, { claims: { scope: "" } });
    assert.equal((await callTool(rs.url, "whoami", `Bearer ${token}`)).status, 200);
  });

  it("holds in a legacy session too", async () => {
    const token = await as.mint(rs.url, { claims: { scope: "files:read" } });
    const headers = {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${token}`,
    };
    const opened = await fetch(rs.url, {
      method: "POST",
      headers,
      body: JSON.stringify(initializeBody()),
    });
    assert.equal(opened.status, 200);
    const session = opened.headers.get("mcp-session-id")!;
    await opened.body?.cancel();
    const legacyHeaders = {
      ...headers,
      "Mcp-Session-Id": session,
      "MCP-Protocol-Version": LEGACY_VERSION,
    };
    const initialized = await fetch(rs.url, {
      method: "POST",
      headers: legacyHeaders,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    assert.equal(initialized.status, 202);
    const call = {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "write_file", arguments: {} },
    };
    const refused = await fetch(rs.url, {
      method: "POST",
      headers: legacyHeaders,
      body: JSON.stringify(call),
    });
    assertInsufficient(refused, "files:read files:write", rs.url);
  });
});

describe("method and resource-wide scopes", () => {
  let rs: Protected;
  before(async () => {
    rs = await startProtected(
      {
        issuer: as.issuer,
        requiredScopes: ["mcp"],
        methodScopes: { "tools/list": ["tools:list"] },
      },
      { responseMode: "sse" },
    );
  });
  after(() => rs.close());

  it("the 401 challenge names the scopes every request needs", async () => {
    const response = await callTool(rs.url, "whoami", undefined);
    assert.equal(response.status, 401);
    assert.equal(challengeOf(response).scope, "mcp");
  });

  it("a token without a resource-wide scope gets 403 for any request", async () => {
    const token = await as.mint(rs.url, { claims: { scope: "tools:list" } });
    assertInsufficient(await callTool(rs.url, "whoami", `Bearer ${token}`), "mcp", rs.url);
  });

  it("a method's scopes are added to the resource-wide ones, before an SSE stream would open", async () => {
    const token = await as.mint(rs.url, { claims: { scope: "mcp" } });
    const body = request("tools/list");
    const response = await fetch(rs.url, {
      method: "POST",
      headers: { ...mcpHeaders(body), Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    assertInsufficient(response, "mcp tools:list", rs.url);
    const both = await as.mint(rs.url, { claims: { scope: "mcp tools:list" } });
    const allowed = await fetch(rs.url, {
      method: "POST",
      headers: { ...mcpHeaders(body), Authorization: `Bearer ${both}` },
      body: JSON.stringify(body),
    });
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get("content-type"), "text/event-stream");
    await allowed.body?.cancel();
  });
});

describe("advertised scopes (what spec-following clients ask for)", () => {
  it("the scopes every request needs are the metadata's scopes_supported too", async () => {
    const rs = await startProtected({ issuer: as.issuer, requiredScopes: ["mcp:tools"] });
    try {
      const document = await json(await fetch(metadataUrlOf(rs.url)));
      assert.deepEqual(document.scopes_supported, ["mcp:tools"]);
      const refused = await callTool(rs.url, "whoami", "Bearer not-valid");
      assert.equal(refused.status, 401);
      assert.equal(challengeOf(refused).scope, "mcp:tools");
    } finally {
      await rs.close();
    }
  });

  it("with none needed, the 401 challenge names scopes_supported", async () => {
    const rs = await startProtected({ issuer: as.issuer, scopesSupported: ["a", "b"] });
    try {
      const refused = await callTool(rs.url, "whoami", undefined);
      assert.equal(refused.status, 401);
      assert.equal(challengeOf(refused).scope, "a b");
      assert.deepEqual((await json(await fetch(metadataUrlOf(rs.url)))).scopes_supported, [
        "a",
        "b",
      ]);
    } finally {
      await rs.close();
    }
  });
});

describe("the web-standard handler", () => {
  it("serves the metadata, challenges and checks scopes without node:http", async () => {
    const resource = "https://mcp.example.com/mcp";
    const { mcp } = buildProtectedServer();
    const handler = createHttpHandler(mcp, {
      auth: protectResource({ issuer: as.issuer, resource }),
      allowedHosts: ["mcp.example.com"],
    });
    try {
      assert.deepEqual(handler.extraPaths, [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
      ]);
      const document = await handler.handle(new Request(metadataUrlOf(resource)));
      assert.equal((await json(document)).resource, resource);
      const body = request("tools/call", { name: "write_file", arguments: {} });
      const send = (token: string) =>
        handler.handle(
          new Request(resource, {
            method: "POST",
            headers: { ...mcpHeaders(body), Authorization: `Bearer ${token}` },
            body: JSON.stringify(body),
          }),
        );
      assertInsufficient(
        await send(await as.mint(resource, { claims: { scope: "files:read" } })),
        "files:read files:write",
        resource,
      );
      const ok = await send(
        await as.mint(resource, { claims: { scope: "files:read files:write" } }),
      );
      assert.equal(ok.status, 200);
      const wrong = await send(await as.mint("https://mcp.example.com/other"));
      assert.equal(wrong.status, 401);
    } finally {
      await handler.close();
    }
  });

  it("refuses both auth and authenticate at once", () => {
    const { mcp } = buildProtectedServer();
    assert.throws(
      () =>
        createHttpHandler(mcp, {
          auth: protectResource({ issuer: as.issuer }),
          authenticate: () => "x",
        }),
      /auth or authenticate/,
    );
  });
});

describe("registration", () => {
  it("refuses scopes that are not scope tokens", () => {
    const { mcp } = buildProtectedServer();
    assert.throws(
      () => mcp.tool({ name: "bad" }, () => "", { scopes: ["has space"] }),
      /scope tokens/,
    );
    assert.throws(
      () => mcp.tool({ name: "bad2" }, () => "", { scopes: ['q"uote'] }),
      /scope tokens/,
    );
  });
});

describe("prompts' and resources' scopes", () => {
  let rs: Protected;
  before(async () => {
    rs = await startProtected({ issuer: as.issuer });
    rs.mcp.prompt({ name: "secret_prompt" }, () => ({ messages: [] }), {
      scopes: ["prompts:secret"],
    });
    rs.mcp.resource({ uri: "mem://vault", name: "vault" }, (uri) => [{ uri, text: "gold" }], {
      scopes: ["vault:read"],
    });
    rs.mcp.resource({ uri: "mem://open", name: "open" }, (uri) => [{ uri, text: "hi" }]);
    rs.mcp.resourceTemplate(
      { uriTemplate: "mem://files/{name}", name: "files" },
      (uri) => [{ uri, text: "file" }],
      { scopes: ["files:read"] },
    );
  });
  after(() => rs.close());

  const send = async (token: string, method: string, params: Record<string, unknown>) => {
    const body = request(method, params);
    return fetch(rs.url, {
      method: "POST",
      headers: { ...mcpHeaders(body), Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
  };

  it("a prompt, a resource and a templated resource need the scopes registered with them", async () => {
    const token = await as.mint(rs.url, { claims: { scope: "other" } });
    assertInsufficient(
      await send(token, "prompts/get", { name: "secret_prompt" }),
      "prompts:secret",
      rs.url,
    );
    assertInsufficient(
      await send(token, "resources/read", { uri: "mem://vault" }),
      "vault:read",
      rs.url,
    );
    assertInsufficient(
      await send(token, "resources/read", { uri: "mem://files/a.txt" }),
      "files:read",
      rs.url,
    );
    assert.equal((await send(token, "resources/read", { uri: "mem://open" })).status, 200);
  });

  it("a token with them gets them", async () => {
    const token = await as.mint(rs.url, {
      claims: { scope: "prompts:secret vault:read files:read" },
    });
    assert.equal((await send(token, "prompts/get", { name: "secret_prompt" })).status, 200);
    const read = await send(token, "resources/read", { uri: "mem://files/a.txt" });
    assert.equal((await json(read)).result.contents[0].text, "file");
  });
});
