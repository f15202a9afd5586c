/**
 * One client cannot fill the legacy session table and lock everyone else out: a full table
 * makes room for a new `initialize` by ending the least recently used idle session (half-open
 * ones first, busy ones never), half-open sessions expire fast, and a per-owner cap keeps one
 * owner's sessions to itself. A well-behaved new client always gets in.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ServeHttpOptions } from "../../../src/transports/http/node-adapter.js";
import { json } from "./http-helpers.js";
import {
  call,
  initializeBody,
  LEGACY_VERSION,
  RawSession,
  SseEvents,
  startLegacyServer,
} from "./legacy-helpers.js";

const HEADERS = {
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
};

/** An `initialize` and nothing more: a half-open session. Returns its id, or the HTTP status. */
async function halfOpen(url: string, extra: Record<string, string> = {}): Promise<string | number> {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...HEADERS, ...extra },
    body: JSON.stringify(initializeBody()),
  });
  await response.body?.cancel();
  return response.headers.get("mcp-session-id") ?? response.status;
}

/** initialize + notifications/initialized, with extra headers on the initialize. */
async function fullSession(url: string, extra: Record<string, string> = {}): Promise<RawSession> {
  const id = await halfOpen(url, extra);
  assert.equal(typeof id, "string", `initialize answered ${id}`);
  const session = new RawSession(url);
  session.sessionId = id as string;
  const ack = await session.post({ jsonrpc: "2.0", method: "notifications/initialized" });
  assert.equal(ack.status, 202);
  return session;
}

/** The HTTP status a ping in session `id` gets: 200 while it lives, 404 once it is gone. */
async function pingStatus(url: string, id: string): Promise<number> {
  const session = new RawSession(url);
  session.sessionId = id;
  const response = await session.post({ jsonrpc: "2.0", id: 99, method: "ping" });
  await response.body?.cancel();
  return response.status;
}

async function withServer(options: ServeHttpOptions, body: (url: string) => Promise<void>) {
  const served = await startLegacyServer(options);
  try {
    await body(served.url);
  } finally {
    await served.close();
  }
}

describe("the legacy session table cannot be monopolised", () => {
  it("a table full of half-open sessions still lets a real client initialize and work", async () => {
    const cap = 200;
    await withServer({ legacy: { maxSessions: cap } }, async (url) => {
      const ids: string[] = [];
      for (let i = 0; i < cap; i += 50) {
        const batch = await Promise.all(Array.from({ length: 50 }, () => halfOpen(url)));
        for (const id of batch) {
          assert.equal(typeof id, "string");
          ids.push(id as string);
        }
      }
      const client = new RawSession(url);
      await client.open();
      const reply = await json(await client.post(call("echo", { text: "in" }, 1)));
      assert.equal(reply.result.content[0].text, "in");
      // Room was made by the least recently used half-open session; the others are still there.
      assert.equal(await pingStatus(url, ids[0]!), 404);
      assert.equal(await pingStatus(url, ids[cap - 1]!), 200);
    });
  });

  it("evicts half-open sessions first, then the least recently used idle one, never a busy one", async () => {
    await withServer({ legacy: { maxSessions: 3 }, keepAliveMs: 0 }, async (url) => {
      const busy = await fullSession(url);
      const stream = await busy.get();
      assert.equal(stream.status, 200);
      const events = new SseEvents(stream);
      const idle = await fullSession(url);
      const pending = await halfOpen(url);
      assert.equal(typeof pending, "string");

      // Full: the half-open session makes room, though it is the most recently used.
      const second = await fullSession(url);
      assert.equal(await pingStatus(url, pending as string), 404);
      // Full again: the busy session is the oldest, but the oldest idle one goes.
      const third = await fullSession(url);
      assert.equal(await pingStatus(url, idle.sessionId!), 404);
      assert.equal(await pingStatus(url, busy.sessionId!), 200);
      assert.equal(await pingStatus(url, second.sessionId!), 200);
      assert.equal(await pingStatus(url, third.sessionId!), 200);
      await events.cancel();
    });
  });

  it("per-owner cap: an owner's new session ends its own oldest idle one; 429 when all are busy", async () => {
    const options: ServeHttpOptions = {
      keepAliveMs: 0,
      legacy: {
        sessionOwner: (request) => request.headers.get("x-tenant") ?? undefined,
        maxSessionsPerOwner: 2,
      },
    };
    await withServer(options, async (url) => {
      const other = await fullSession(url, { "X-Tenant": "b" });
      const first = await fullSession(url, { "X-Tenant": "a" });
      const second = await fullSession(url, { "X-Tenant": "a" });
      const third = await fullSession(url, { "X-Tenant": "a" });
      assert.equal(await pingStatus(url, first.sessionId!), 404);
      assert.equal(await pingStatus(url, second.sessionId!), 200);
      assert.equal(await pingStatus(url, third.sessionId!), 200);
      assert.equal(await pingStatus(url, other.sessionId!), 200);

      const streams = [await second.get(), await third.get()];
      const refused = await fetch(url, {
        method: "POST",
        headers: { ...HEADERS, "X-Tenant": "a" },
        body: JSON.stringify(initializeBody()),
      });
      assert.equal(refused.status, 429);
      assert.equal((await json(refused)).error.code, -32600);
      // Another owner is not affected.
      await fullSession(url, { "X-Tenant": "b" });
      for (const stream of streams) await stream.body?.cancel();
    });
  });

  it("a half-open session expires after halfOpenSessionMs; an initialized one does not", async () => {
    // Long enough for one round trip between initialize and initialized, even on a busy box.
    await withServer({ legacy: { halfOpenSessionMs: 1_000 } }, async (url) => {
      const pending = await halfOpen(url);
      const full = await fullSession(url);
      // Past the half-open lifetime (the clock only moves forward).
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      assert.equal(await pingStatus(url, pending as string), 404);
      assert.equal(await pingStatus(url, full.sessionId!), 200);
      assert.equal(full.version, LEGACY_VERSION);
    });
  });
});
