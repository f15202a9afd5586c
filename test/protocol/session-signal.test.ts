import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { LocalError } from "../../src/jsonrpc/errors.js";
import type { JsonObject, JsonRpcMessage } from "../../src/jsonrpc/types.js";
import { Session } from "../../src/protocol/session.js";
import { McpServer } from "../../src/server/index.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import { until } from "../helpers/poll.js";

// The session makes a request's AbortSignal only when its handler reads `signal`. These tests
// pin down that an abort that happened before the first read is never lost.

function serverWithPeer() {
  const [mine, theirs] = createMemoryPair();
  const server = new Session(mine, { shutdownGraceMs: 2000 });
  const received: JsonRpcMessage[] = [];
  theirs.start({ message: (message) => received.push(message) });
  return { server, peer: theirs, received };
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe("Session: request signals made on first use", () => {
  it("a handler that reads signal only after a cancel sees it aborted, with the reason", async () => {
    const { server, peer, received } = serverWithPeer();
    const cancelled = gate();
    let seen: { aborted: boolean; reason: unknown } | undefined;
    server.setRequestHandler("slow", async (_params, context) => {
      await cancelled.opened;
      seen = { aborted: context.signal.aborted, reason: context.signal.reason };
      return {};
    });
    server.start();
    await peer.send({ jsonrpc: "2.0", id: 1, method: "slow" });
    await until(() => server.activeRequests === 1);
    await peer.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 1, reason: "user gave up" },
    });
    await delay(20);
    cancelled.open();
    await until(() => server.activeRequests === 0);
    assert.equal(seen?.aborted, true);
    assert.ok(seen?.reason instanceof LocalError);
    assert.equal((seen.reason as LocalError).kind, "aborted");
    assert.equal((seen.reason as LocalError).message, "user gave up");
    await delay(20);
    assert.deepEqual(received, [], "a cancelled request is never answered");
    await server.close();
  });

  it("a handler that never reads signal is still cancelled: no reply goes out", async () => {
    const { server, peer, received } = serverWithPeer();
    const release = gate();
    server.setRequestHandler("slow", async () => {
      await release.opened;
      return { late: true };
    });
    server.setRequestHandler("fast", () => ({ ok: true }));
    server.start();
    await peer.send({ jsonrpc: "2.0", id: "a", method: "slow" });
    await until(() => server.activeRequests === 1);
    await peer.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "a" },
    });
    await delay(20);
    release.open();
    await until(() => server.activeRequests === 0);
    await peer.send({ jsonrpc: "2.0", id: "b", method: "fast" });
    await until(() => received.length === 1);
    assert.deepEqual(received, [{ jsonrpc: "2.0", id: "b", result: { ok: true } }]);
    await server.close();
  });

  it("shutdown aborts a handler that never read its signal; a later read sees it", async () => {
    const { server, peer, received } = serverWithPeer();
    const release = gate();
    let abortedWhenRead: boolean | undefined;
    let reason: unknown;
    server.setRequestHandler("slow", async (_params, context) => {
      await release.opened;
      abortedWhenRead = context.signal.aborted;
      reason = context.signal.reason;
      return { finished: true };
    });
    server.start();
    await peer.send({ jsonrpc: "2.0", id: 7, method: "slow" });
    await until(() => server.activeRequests === 1);
    const shutdown = server.shutdown();
    await delay(20);
    release.open();
    await shutdown;
    assert.equal(abortedWhenRead, true);
    assert.ok(reason instanceof LocalError);
    assert.equal((reason as LocalError).kind, "closed");
    // Finished within the grace period, so its reply still goes out (the memory pair delivers
    // on a later tick).
    await until(() => received.some((message) => "id" in message && message.id === 7));
  });

  it("a signal read before the abort fires its abort event once", async () => {
    const { server, peer } = serverWithPeer();
    let events = 0;
    let signal: AbortSignal | undefined;
    server.setRequestHandler("slow", async (_params, context) => {
      signal = context.signal;
      signal.addEventListener("abort", () => events++);
      await new Promise((resolve) => signal!.addEventListener("abort", resolve));
      return {};
    });
    server.start();
    await peer.send({ jsonrpc: "2.0", id: 1, method: "slow" });
    await until(() => signal !== undefined);
    await peer.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 1 },
    });
    await until(() => server.activeRequests === 0);
    await server.close();
    assert.equal(events, 1, "closing after the cancel does not abort again");
    assert.equal((signal!.reason as LocalError).kind, "aborted");
  });

  it("an McpServer tool handler that reads signal after the client cancelled sees it aborted", async () => {
    const mcp = new McpServer({ serverInfo: { name: "t", version: "1" } });
    const release = gate();
    let abortedWhenRead: boolean | undefined;
    let started = false;
    mcp.tool({ name: "wait" }, async (_args, context) => {
      started = true;
      await release.opened;
      abortedWhenRead = context.signal.aborted;
      return "done";
    });
    const [serverSide, clientSide] = createMemoryPair();
    mcp.connect(serverSide);
    const received: JsonRpcMessage[] = [];
    clientSide.start({ message: (message) => received.push(message) });
    const meta: JsonObject = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    await clientSide.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "wait", arguments: {}, _meta: meta },
    });
    await until(() => started);
    await clientSide.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 1 },
    });
    await delay(20);
    release.open();
    await until(() => abortedWhenRead !== undefined);
    assert.equal(abortedWhenRead, true);
    await delay(20);
    assert.deepEqual(received, []);
    await clientSide.close();
    await mcp.close();
  });
});
