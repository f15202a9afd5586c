/**
 * The tasks quota (issue 25.A1): one client cannot take every task slot of a server. A client
 * is its principal, else its legacy session, else every anonymous modern client together; the
 * store's own maximum caps everyone together. Both refusals are -32603 naming the limit, and a
 * second client is served while the first is at its quota.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { encodeHeaderValue } from "../../src/protocol/http-headers.js";
import { McpServer } from "../../src/server/index.js";
import { InMemoryTaskStore } from "../../src/server/tasks/memory-store.js";
import {
  TaskQuotaError,
  type TaskRecord,
  TaskStoreFullError,
} from "../../src/server/tasks/store.js";
import { TASKS_EXTENSION } from "../../src/server/tasks/wire.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";
import { legacyClient, WITH_TASKS } from "./tasks-helpers.js";

function record(taskId: string, createdAt: number, ttlMs: number | null): TaskRecord {
  return {
    taskId,
    owner: "",
    status: "working",
    createdAt,
    lastUpdatedAt: createdAt,
    ttlMs,
    version: 1,
  };
}

/** A server whose "hold" tool runs until its task is cancelled or the server closes. */
function build(store?: InMemoryTaskStore): McpServer {
  const server = new McpServer({
    serverInfo: { name: "tasks-quota", version: "1" },
    onError: () => {},
    tasks: { maxTasksPerOwner: 3, ...(store ? { store } : {}) },
  });
  server.tool(
    { name: "hold" },
    (_args, context) =>
      new Promise((_, reject) =>
        context.signal.addEventListener("abort", () => reject(context.signal.reason)),
      ),
    { task: { support: "required" } },
  );
  return server;
}

async function call(url: string, token?: string) {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
    "Mcp-Name": encodeHeaderValue("hold"),
  };
  if (token) headers.Authorization = `Bearer ${token}`;
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "hold",
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS_EXTENSION]: {} } },
      },
    },
  };
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  return (await response.json()) as {
    result?: { resultType?: string; taskId?: string };
    error?: { code: number; message: string; data?: { limit?: number } };
  };
}

describe("tasks: the in-memory store's quota per owner", () => {
  it("refuses an owner at its maximum, serves another, and counts a task until its TTL", async () => {
    let now = 1_000_000;
    const store = new InMemoryTaskStore({ now: () => now, sweepIntervalMs: 0 });
    const alice = { owner: "p:alice", max: 2 };
    await store.create(record("a1", now, 1000), alice);
    await store.create(record("a2", now, 5000), alice);
    const refused = await store.create(record("a3", now, 1000), alice).catch((error) => error);
    assert.ok(refused instanceof TaskQuotaError);
    assert.match(refused.message, /maximum of 2 /);
    await store.create(record("b1", now, 1000), { owner: "p:bob", max: 2 });
    // A finished task still counts: it holds its result until its TTL.
    await store.compareAndSet({ ...record("a1", now, 1000), status: "completed", version: 2 }, 1);
    await assert.rejects(store.create(record("a3", now, 1000), alice), TaskQuotaError);
    now += 1000; // a1 (and b1) expired: one slot back, found without a sweep
    await store.create(record("a3", now, 1000), alice);
    now += 5000;
    store.sweep();
    assert.equal(store.size, 0);
    assert.equal(store.quotaOwnerCount, 0, "nothing kept for owners whose tasks are gone");
  });

  it("the store's maximum still caps everyone together", async () => {
    const store = new InMemoryTaskStore({ maxTasks: 3, sweepIntervalMs: 0 });
    for (const id of ["a", "b", "c"]) {
      await store.create(record(id, Date.now(), 60_000), { owner: id, max: 10 });
    }
    const refused = await store
      .create(record("d", Date.now(), 60_000), { owner: "d", max: 10 })
      .catch((error) => error);
    assert.ok(refused instanceof TaskStoreFullError && !(refused instanceof TaskQuotaError));
    assert.equal(refused.limit, 3);
  });
});

describe("tasks: the quota on the wire", () => {
  let served: ServedHttp;
  let server: McpServer;
  before(async () => {
    server = build(new InMemoryTaskStore({ maxTasks: 8 }));
    served = await serveHttp(server, {
      // A bearer token names the principal; no token is an anonymous client.
      authenticate: (request) => {
        const auth = request.headers.get("authorization");
        return auth ? { sub: auth.slice("Bearer ".length) } : undefined;
      },
    });
  });
  after(() => served.close());

  it("a principal at its quota gets -32603 naming it; another principal is still served", async () => {
    for (let i = 0; i < 3; i++) {
      assert.equal((await call(served.url, "alice")).result?.resultType, "task");
    }
    const refused = await call(served.url, "alice");
    assert.equal(refused.error?.code, -32603);
    assert.match(refused.error!.message, /You already hold 3 tasks.*maxTasksPerOwner/);
    assert.equal(refused.error?.data?.limit, 3);
    assert.equal((await call(served.url, "bob")).result?.resultType, "task");
  });

  it("anonymous modern clients share one quota", async () => {
    for (let i = 0; i < 3; i++) {
      assert.equal((await call(served.url)).result?.resultType, "task");
    }
    assert.equal((await call(served.url)).error?.code, -32603);
    assert.equal((await call(served.url, "carol")).result?.resultType, "task");
  });

  it("the server-wide maximum refuses everyone once reached, naming it", async () => {
    // alice 3, bob 1, anonymous 3, carol 1: the store's 8 are taken.
    const refused = await call(served.url, "dave");
    assert.equal(refused.error?.code, -32603);
    assert.match(
      refused.error!.message,
      /too many tasks right now \(at most 8, all clients together\)/,
    );
    assert.equal(refused.error?.data?.limit, 8);
  });
});

describe("tasks: the quota of unauthenticated legacy sessions", () => {
  it("each legacy session has its own quota, kept across a second initialize", async () => {
    const server = build();
    const first = await legacyClient(server, WITH_TASKS);
    const second = await legacyClient(server, WITH_TASKS);
    try {
      for (let i = 0; i < 3; i++) {
        assert.equal((await first.call("tools/call", { name: "hold" })).result?.resultType, "task");
      }
      assert.equal((await first.call("tools/call", { name: "hold" })).error?.code, -32603);
      assert.equal((await second.call("tools/call", { name: "hold" })).result?.resultType, "task");
      await first.call("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: WITH_TASKS,
        clientInfo: { name: "again", version: "1" },
      });
      assert.equal((await first.call("tools/call", { name: "hold" })).error?.code, -32603);
    } finally {
      await first.close();
      await second.close();
      await server.close();
    }
  });

  it("refuses a bad maxTasksPerOwner when the server is made", () => {
    assert.throws(
      () =>
        new McpServer({ serverInfo: { name: "x", version: "1" }, tasks: { maxTasksPerOwner: 0 } }),
      /maxTasksPerOwner must be a positive integer/,
    );
  });
});
