/**
 * The auth seam shows every answer to the provider's `onAnswer`, successes as well as
 * challenges, on every request style (modern POSTs over node:http and over the user's fetch,
 * legacy POSTs, GET stream and DELETE, the 2024-11-05 HTTP+SSE GET and POSTs): what a DPoP
 * nonce handed out on a 200 needs (RFC 9449 §8, §9). The server puts a nonce naming the request
 * on each answer; the provider must have seen each one, with the request it answered.
 */
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { afterEach, describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import {
  type HttpAuthProvider,
  HttpClientTransport,
} from "../../src/transports/http/client/index.js";
import { until } from "../helpers/poll.js";
import {
  type Captured,
  type ScriptedServer,
  scriptedServer,
  sendJson,
} from "../transports/http/client-scripted-server.js";
import { legacyScript, modernScript, sseFallbackScript } from "./seam-scripts.js";

const clientInfo = { name: "answers-test", version: "1.0.0" };

let server: ScriptedServer | undefined;
let client: McpClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

interface Seen {
  method: string;
  path: string;
  status: number;
  nonce: string | null;
}

/** A provider that sends a fixed token and records every answer it is shown. */
function recordingProvider(): { provider: HttpAuthProvider; seen: Seen[] } {
  const seen: Seen[] = [];
  const provider: HttpAuthProvider = {
    headers: async () => ({ Authorization: "Bearer t" }),
    onChallenge: async () => "fail",
    onAnswer: (answer) =>
      seen.push({
        method: answer.request.method,
        path: answer.request.url.pathname,
        status: answer.status,
        nonce: answer.header("dpop-nonce"),
      }),
  };
  return { provider, seen };
}

/** Runs `script` after putting a nonce that names the request on its answer. */
function withNonces(script: (request: Captured, res: ServerResponse) => void) {
  let count = 0;
  return (request: Captured, res: ServerResponse) => {
    res.setHeader("DPoP-Nonce", `${request.method}-${++count}`);
    script(request, res);
  };
}

/** Every request the server answered was shown to the provider with its nonce. */
function assertAllSeen(requests: Captured[], seen: Seen[]) {
  assert.ok(requests.length > 0);
  const nonces = seen.map((s) => s.nonce);
  for (const [index, request] of requests.entries()) {
    const nonce = `${request.method}-${index + 1}`;
    assert.ok(nonces.includes(nonce), `${nonce} (${request.path}) not seen: ${nonces.join(" ")}`);
    const answer = seen.find((s) => s.nonce === nonce) as Seen;
    assert.equal(answer.method, request.method);
    assert.equal(answer.path, request.path.split("?")[0]);
  }
}

describe("auth seam: every answer reaches onAnswer", () => {
  for (const carrier of ["node:http", "fetch"] as const) {
    it(`modern POSTs over ${carrier}: 200s and 202s`, async () => {
      const { provider, seen } = recordingProvider();
      server = await scriptedServer(withNonces(modernScript));
      const transport = new HttpClientTransport(server.url, {
        auth: provider,
        flavourCache: new Map(),
        ...(carrier === "fetch" ? { fetch: (url, init) => fetch(url, init) } : {}),
      });
      client = new McpClient({ clientInfo });
      await client.connect(transport);
      await client.callTool("t", {});
      await transport.send({ jsonrpc: "2.0", method: "notifications/something" });
      assert.deepEqual(
        seen.map((s) => s.status),
        [200, 200, 202],
      );
      assertAllSeen(server.requests, seen);
    });
  }

  it("legacy Streamable HTTP: POSTs, the GET stream and the closing DELETE", async () => {
    const { provider, seen } = recordingProvider();
    server = await scriptedServer(withNonces(legacyScript));
    const transport = new HttpClientTransport(server.url, {
      auth: provider,
      flavourCache: new Map(),
    });
    client = new McpClient({ clientInfo, era: "legacy" });
    await client.connect(transport);
    await client.callTool("t", {});
    await until(() => seen.some((s) => s.method === "GET"));
    await client.close();
    const requests = (server as ScriptedServer).requests;
    assert.deepEqual([...new Set(requests.map((r) => r.method))].sort(), ["DELETE", "GET", "POST"]);
    assertAllSeen(requests, seen);
  });

  it("the 2024-11-05 HTTP+SSE fallback: the refused probe, the GET stream and every POST", async () => {
    const { provider, seen } = recordingProvider();
    server = await scriptedServer(withNonces(sseFallbackScript()));
    client = new McpClient({ clientInfo, era: "legacy" });
    await client.connect(
      new HttpClientTransport(server.url, { auth: provider, flavourCache: new Map() }),
    );
    await client.callTool("t", {});
    assert.ok(seen.some((s) => s.status === 405));
    assert.ok(seen.some((s) => s.path === "/messages"));
    assertAllSeen(server.requests, seen);
  });

  it("a challenge too, before onChallenge sees it", async () => {
    const order: string[] = [];
    const provider: HttpAuthProvider = {
      headers: async () => ({ Authorization: "Bearer t" }),
      onChallenge: async (challenge) => {
        order.push(`challenge ${challenge.status}`);
        return "fail";
      },
      onAnswer: (answer) => order.push(`answer ${answer.status} ${answer.header("dpop-nonce")}`),
    };
    server = await scriptedServer(
      withNonces((_request, res) =>
        sendJson(res, 401, {}, { "WWW-Authenticate": 'DPoP error="use_dpop_nonce"' }),
      ),
    );
    client = new McpClient({ clientInfo });
    await assert.rejects(
      client.connect(
        new HttpClientTransport(server.url, { auth: provider, flavourCache: new Map() }),
      ),
    );
    assert.deepEqual(order.slice(0, 2), ["answer 401 POST-1", "challenge 401"]);
  });
});
