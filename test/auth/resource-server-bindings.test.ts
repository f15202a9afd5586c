/**
 * On a protected endpoint, legacy sessions, their event streams, HTTP+SSE sessions and MRTR
 * requestState stay with the user whose token made them: another user's valid token cannot
 * use, read, resume, end or answer them, while the same user with a refreshed token (new
 * jti, exp, scopes) still can.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { json, mcpHeaders } from "../transports/http/http-helpers.js";
import { initializeBody, LEGACY_VERSION, SseEvents } from "../transports/http/legacy-helpers.js";
import { type JwtIssuer, startJwtIssuer } from "./jwt-issuer.js";
import { type Protected, startProtected } from "./resource-server-fixtures.js";

const JSON_AND_SSE = {
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
};

let as: JwtIssuer;
let rs: Protected;
before(async () => {
  as = await startJwtIssuer();
  rs = await startProtected({ issuer: as.issuer }, { legacySse: true });
  rs.mcp.tool({ name: "confirm", inputSchema: { type: "object" } }, async (_args, context) => {
    await context.input({
      ok: {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: "Go ahead?",
          requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
        },
      },
    });
    return "confirmed";
  });
});
after(async () => {
  await rs.close();
  await as.close();
});

const tokenFor = (sub: string, scope = "mcp", resource = rs.url) =>
  as.mint(resource, { claims: { sub, client_id: "app", scope } });

class LegacyUser {
  constructor(
    private readonly session: string,
    private readonly token: string,
  ) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ...JSON_AND_SSE,
      Authorization: `Bearer ${this.token}`,
      "Mcp-Session-Id": this.session,
      "MCP-Protocol-Version": LEGACY_VERSION,
      ...extra,
    };
  }

  post(body: unknown): Promise<Response> {
    return fetch(rs.url, { method: "POST", headers: this.headers(), body: JSON.stringify(body) });
  }

  get(lastEventId?: string): Promise<Response> {
    const extra: Record<string, string> = { Accept: "text/event-stream" };
    if (lastEventId !== undefined) extra["Last-Event-ID"] = lastEventId;
    return fetch(rs.url, { method: "GET", headers: this.headers(extra) });
  }

  delete(): Promise<Response> {
    return fetch(rs.url, { method: "DELETE", headers: this.headers() });
  }
}

async function openSession(token: string): Promise<string> {
  const opened = await fetch(rs.url, {
    method: "POST",
    headers: { ...JSON_AND_SSE, Authorization: `Bearer ${token}` },
    body: JSON.stringify(initializeBody()),
  });
  assert.equal(opened.status, 200);
  await opened.body?.cancel();
  const session = opened.headers.get("mcp-session-id")!;
  const ack = await new LegacyUser(session, token).post({
    jsonrpc: "2.0",
    method: "notifications/initialized",
  });
  assert.equal(ack.status, 202);
  return session;
}

const whoami = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "whoami", arguments: {} },
});

describe("legacy sessions belong to the user who opened them", () => {
  it("another user's token cannot post to, read, resume or end the session", async () => {
    const session = await openSession(await tokenFor("alice"));
    const mallory = new LegacyUser(session, await tokenFor("mallory"));
    assert.equal((await mallory.post(whoami(1))).status, 404);
    assert.equal((await mallory.get()).status, 404);
    assert.equal((await mallory.get(`${session}:0:1`)).status, 404);
    assert.equal((await mallory.delete()).status, 404);
    // Still alice's, still alive.
    const alice = new LegacyUser(session, await tokenFor("alice"));
    assert.equal((await alice.post(whoami(2))).status, 200);
  });

  it("the same user with a refreshed token (new jti, expiry, scopes) keeps the session, its stream and can end it", async () => {
    const session = await openSession(await tokenFor("bob"));
    const refreshed = new LegacyUser(session, await tokenFor("bob", "mcp extra"));
    const reply = await refreshed.post(whoami(1));
    assert.equal(reply.status, 200);
    const stream = await refreshed.get();
    assert.equal(stream.status, 200);
    await stream.body?.cancel();
    assert.equal((await refreshed.delete()).status, 204);
  });

  it("another client of the same user is someone else", async () => {
    const session = await openSession(await tokenFor("carol"));
    const otherApp = await as.mint(rs.url, { claims: { sub: "carol", client_id: "other-app" } });
    assert.equal((await new LegacyUser(session, otherApp).post(whoami(1))).status, 404);
  });
});

describe("HTTP+SSE (2024-11-05) sessions belong to the user who opened them", () => {
  // /sse and /messages are a resource of their own (…/sse): tokens are for it.
  const sseToken = (sub: string, scope = "mcp") =>
    tokenFor(sub, scope, new URL("/sse", rs.url).href);

  it("another user's token cannot post into the session", async () => {
    const alice = await sseToken("alice");
    const sse = await fetch(new URL("/sse", rs.url), {
      headers: { Accept: "text/event-stream", Authorization: `Bearer ${alice}` },
    });
    assert.equal(sse.status, 200);
    const events = new SseEvents(sse);
    const endpoint = (await events.next())!.data;
    const postAs = async (token: string) =>
      fetch(new URL(endpoint, rs.url), {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
        body: JSON.stringify(initializeBody("2024-11-05")),
      });
    assert.equal((await postAs(await sseToken("mallory"))).status, 404);
    assert.equal((await postAs(await sseToken("alice", "refreshed"))).status, 202);
    await events.cancel();
  });
});

describe("MRTR requestState belongs to the user it was issued to", () => {
  const META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  };
  const send = async (token: string, params: Record<string, unknown>) => {
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "confirm", arguments: {}, ...params, _meta: META },
    };
    const response = await fetch(rs.url, {
      method: "POST",
      headers: { ...mcpHeaders(body), Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    return json(response);
  };

  it("another user cannot answer it; the same user with a refreshed token can", async () => {
    const first = await send(await tokenFor("dave"), {});
    assert.equal(first.result?.resultType, "input_required", JSON.stringify(first));
    const answer = {
      requestState: first.result.requestState,
      inputResponses: { ok: { action: "accept", content: { ok: true } } },
    };
    const stolen = await send(await tokenFor("mallory"), answer);
    assert.match(stolen.error?.message ?? "", /different principal/);
    const retried = await send(await tokenFor("dave", "mcp more"), answer);
    assert.equal(retried.result?.content?.[0]?.text, "confirmed", JSON.stringify(retried));
  });
});
