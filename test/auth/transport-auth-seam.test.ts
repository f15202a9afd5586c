/**
 * The auth seam of HttpClientTransport: the provider's headers on every request style (modern
 * POST and notification, legacy POST/GET stream/DELETE, the 2024-11-05 HTTP+SSE GET and POSTs),
 * and at most one transparent retry after a challenge.
 */
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { afterEach, describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import {
  AuthorizationError,
  bearerToken,
  type HttpAuthChallenge,
  type HttpAuthProvider,
  HttpClientTransport,
  HttpStatusError,
} from "../../src/transports/http/client/index.js";
import { until } from "../helpers/poll.js";
import {
  type Captured,
  INITIALIZE_RESULT,
  result,
  type ScriptedServer,
  scriptedServer,
  sendJson,
} from "../transports/http/client-scripted-server.js";
import { legacyScript, modernScript, sseFallbackScript, TOOL_RESULT } from "./seam-scripts.js";

const clientInfo = { name: "seam-test", version: "1.0.0" };
const KEY = "Bearer k3y-for-tests";

let server: ScriptedServer | undefined;
let client: McpClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function connect(
  script: (request: Captured, res: ServerResponse) => void,
  auth: HttpAuthProvider,
  options: { legacy?: boolean } = {},
) {
  server = await scriptedServer(script);
  const transport = new HttpClientTransport(server.url, {
    auth,
    flavourCache: new Map(),
    reconnectDelayMs: 20,
  });
  client = new McpClient({ clientInfo, ...(options.legacy ? { era: "legacy" as const } : {}) });
  await client.connect(transport);
  return { server, client, transport };
}

function assertAllCarry(requests: Captured[], value: string) {
  assert.ok(requests.length > 0);
  for (const request of requests) {
    assert.equal(
      request.headers.authorization,
      value,
      `${request.method} ${request.path} ${String(request.json?.method ?? "")}`,
    );
  }
}

describe("auth seam: the static bearer token on every request style", () => {
  it("modern POSTs, requests and notifications alike", async () => {
    const { server, transport } = await connect(modernScript, bearerToken("k3y-for-tests"));
    await client?.callTool("t", {});
    await transport.send({ jsonrpc: "2.0", method: "notifications/something" });
    assert.deepEqual(server.methods(), [
      "server/discover",
      "tools/call",
      "notifications/something",
    ]);
    assertAllCarry(server.requests, KEY);
  });

  it("legacy Streamable HTTP: POSTs, the GET stream and the closing DELETE", async () => {
    const { server } = await connect(
      legacyScript,
      bearerToken(() => "k3y-for-tests"),
      {
        legacy: true,
      },
    );
    await client?.callTool("t", {});
    await until(() => server.requests.some((r) => r.method === "GET"));
    await client?.close();
    await until(() => server.requests.some((r) => r.method === "DELETE"));
    assert.deepEqual([...new Set(server.requests.map((r) => r.method))].sort(), [
      "DELETE",
      "GET",
      "POST",
    ]);
    assertAllCarry(server.requests, KEY);
  });

  it("the 2024-11-05 HTTP+SSE fallback: the GET stream and every POST", async () => {
    const { server } = await connect(sseFallbackScript(), bearerToken("k3y-for-tests"), {
      legacy: true,
    });
    await client?.callTool("t", {});
    assert.ok(server.requests.some((r) => r.method === "GET"));
    assert.ok(server.requests.some((r) => r.path.startsWith("/messages")));
    assertAllCarry(server.requests, KEY);
  });

  it("refuses to send a token over plain http off loopback, before any request", async () => {
    let fetched = 0;
    const transport = new HttpClientTransport("http://mcp.example.test/mcp", {
      auth: bearerToken("k3y-for-tests"),
      flavourCache: new Map(),
      fetch: async () => {
        fetched += 1;
        return new Response("{}");
      },
    });
    transport.start({ message: () => {} });
    await assert.rejects(
      transport.send({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      AuthorizationError,
    );
    assert.equal(fetched, 0);
    await transport.close();
  });
});

/** A provider whose token changes each time a challenge asks it to retry. */
function rotatingProvider() {
  const challenges: HttpAuthChallenge[] = [];
  let generation = 0;
  const provider: HttpAuthProvider = {
    headers: async () => ({ Authorization: `Bearer gen-${generation}` }),
    onChallenge: async (challenge) => {
      challenges.push(challenge);
      generation += 1;
      return "retry";
    },
  };
  return { provider, challenges };
}

describe("auth seam: challenges", () => {
  it("connect() in auto era fails with the AuthorizationError itself, not as a closed probe", async () => {
    server = await scriptedServer((_request, res) =>
      sendJson(res, 401, {}, { "WWW-Authenticate": "Bearer" }),
    );
    const provider: HttpAuthProvider = {
      headers: async () => ({}),
      onChallenge: async () => {
        throw new AuthorizationError("token", "the authorization server refused the client");
      },
    };
    const transport = new HttpClientTransport(server.url, {
      auth: provider,
      flavourCache: new Map(),
    });
    client = new McpClient({ clientInfo });
    const error = await client.connect(transport).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof AuthorizationError, String(error));
    assert.equal(error.step, "token");
    assert.match(error.message, /refused the client/);
  });

  it("a 401 retries once with fresh headers, and the challenge reaches the provider", async () => {
    const { provider, challenges } = rotatingProvider();
    const { server } = await connect((request, res) => {
      if (request.headers.authorization === "Bearer gen-0") {
        return sendJson(res, 401, {}, { "WWW-Authenticate": 'Bearer scope="x"' });
      }
      modernScript(request, res);
    }, provider);
    assert.equal(challenges.length, 1);
    assert.equal(challenges[0]?.status, 401);
    assert.equal(challenges[0]?.headers.get("www-authenticate"), 'Bearer scope="x"');
    assert.deepEqual(challenges[0]?.sent, { Authorization: "Bearer gen-0" });
    assert.deepEqual(
      server.requests.map((r) => r.headers.authorization),
      ["Bearer gen-0", "Bearer gen-1"],
    );
  });

  for (const era of ["modern", "legacy"] as const) {
    it(`never more than one retry per request (${era})`, async () => {
      const { provider, challenges } = rotatingProvider();
      server = await scriptedServer((_request, res) =>
        sendJson(res, 401, {}, { "WWW-Authenticate": "Bearer" }),
      );
      const transport = new HttpClientTransport(server.url, {
        auth: provider,
        flavourCache: new Map(),
      });
      client = new McpClient({ clientInfo, ...(era === "legacy" ? { era } : {}) });
      const error = await client.connect(transport).then(
        () => assert.fail("connect should fail"),
        (e: unknown) => e,
      );
      assert.ok(
        error instanceof HttpStatusError || (error as Error).cause instanceof HttpStatusError,
        String(error),
      );
      assert.equal(server.requests.length, 2);
      assert.equal(challenges.length, 1);
    });
  }
});

describe("auth seam: a DPoP nonce after the retry", () => {
  it("allows one more retry only for a 401 that hands out a DPoP nonce, telling the provider it is a retry", async () => {
    const { provider, challenges } = rotatingProvider();
    server = await scriptedServer((_request, res) =>
      sendJson(
        res,
        401,
        {},
        { "WWW-Authenticate": 'DPoP error="use_dpop_nonce"', "DPoP-Nonce": "n" },
      ),
    );
    const transport = new HttpClientTransport(server.url, {
      auth: provider,
      flavourCache: new Map(),
    });
    client = new McpClient({ clientInfo });
    await assert.rejects(client.connect(transport));
    assert.equal(server.requests.length, 3);
    assert.deepEqual(
      challenges.map((c) => c.retried),
      [false, true],
    );
  });
});

describe("auth seam: the legacy GET stream", () => {
  it("stops after one failed authorization instead of asking again on every reconnect", async () => {
    let challenges = 0;
    const warnings: string[] = [];
    const provider: HttpAuthProvider = {
      headers: async () => ({ Authorization: "Bearer good" }),
      onChallenge: async () => {
        challenges += 1;
        throw new AuthorizationError("authorize", "the user said no");
      },
    };
    server = await scriptedServer((request, res) => {
      if (request.method === "GET") {
        return sendJson(res, 401, {}, { "WWW-Authenticate": "Bearer" });
      }
      if (request.method === "DELETE") return void res.writeHead(200).end();
      if (request.json?.method === "initialize") {
        return sendJson(res, 200, result(request, INITIALIZE_RESULT), { "Mcp-Session-Id": "s" });
      }
      if (request.json?.id === undefined) return void res.writeHead(202).end();
      sendJson(res, 200, result(request, TOOL_RESULT));
    });
    const transport = new HttpClientTransport(server.url, {
      auth: provider,
      flavourCache: new Map(),
      reconnectDelayMs: 1,
      onWarning: (message) => warnings.push(message),
    });
    client = new McpClient({ clientInfo, era: "legacy" });
    await client.connect(transport);
    await until(() => warnings.some((w) => w.includes("GET stream")));
    assert.equal(challenges, 1, warnings.join("\n"));
    assert.equal(server.requests.filter((r) => r.method === "GET").length, 1);
  });
});
