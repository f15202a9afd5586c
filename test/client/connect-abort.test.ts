/**
 * Giving up connect(): its `signal`, or close() while it runs. The request in flight is
 * cancelled, connect() rejects at once (not at some timeout), no fresh transport is opened (no
 * second server gets `initialize` after an abandoned era probe) and what was opened is closed.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { LocalError } from "../../src/jsonrpc/errors.js";
import type { Transport } from "../../src/protocol/transport.js";
import { type FakeServer, fakePair } from "./fake-server.js";

const clientInfo = { name: "test-client", version: "0.0.1" };

/** A factory of fake servers that never answer, remembering each one it made. */
function silentServers(): { factory: () => Promise<Transport>; servers: FakeServer[] } {
  const servers: FakeServer[] = [];
  const factory = async () => {
    const { transport, server } = fakePair();
    server.on("server/discover", "silence").on("initialize", "silence");
    servers.push(server);
    return transport;
  };
  return { factory, servers };
}

/** Resolves when the transport has closed (the far end saw it close). */
function closedFromFarEnd(server: FakeServer): Promise<unknown> {
  return server.transport.closed;
}

describe("connect() given up", () => {
  it("an aborted signal during the era probe: rejects with the reason, cancels, opens nothing new", async () => {
    const { factory, servers } = silentServers();
    // Long timeouts: only the abort may end this connect.
    const client = new McpClient({ clientInfo, probeTimeoutMs: 60_000, requestTimeoutMs: 60_000 });
    const controller = new AbortController();
    const connecting = client.connect(factory, { signal: controller.signal });
    await servers[0]!.waitFor("server/discover");
    const reason = new LocalError("aborted", "interrupted (Ctrl-C)");
    controller.abort(reason);
    await assert.rejects(connecting, (error) => error === reason);
    await closedFromFarEnd(servers[0]!);
    assert.equal(servers.length, 1, "a second transport was opened after the abort");
    assert.deepEqual(servers[0]!.methods(), ["server/discover", "notifications/cancelled"]);
  });

  it("close() during the era probe: rejects as closed and never sends initialize anywhere", async () => {
    const { factory, servers } = silentServers();
    const client = new McpClient({ clientInfo, probeTimeoutMs: 60_000, requestTimeoutMs: 60_000 });
    const connecting = client.connect(factory);
    await servers[0]!.waitFor("server/discover");
    await client.close();
    await assert.rejects(
      connecting,
      (error) => error instanceof LocalError && error.kind === "closed",
    );
    assert.equal(servers.length, 1, "close() started a second server");
    assert.ok(servers.every((server) => !server.methods().includes("initialize")));
  });

  it("an abort during legacy initialize ends it; a plain (non-Error) reason becomes kind aborted", async () => {
    const { factory, servers } = silentServers();
    const client = new McpClient({ clientInfo, era: "legacy", requestTimeoutMs: 60_000 });
    const controller = new AbortController();
    const connecting = client.connect(factory, { signal: controller.signal });
    await servers[0]!.waitFor("initialize");
    controller.abort("user gave up");
    await assert.rejects(
      connecting,
      (error) =>
        error instanceof LocalError &&
        error.kind === "aborted" &&
        /user gave up/.test(error.message),
    );
    await closedFromFarEnd(servers[0]!);
  });

  it("an abort while the factory is still making the transport closes that transport", async () => {
    const controller = new AbortController();
    let made: FakeServer | undefined;
    const factory = async () => {
      const { transport, server } = fakePair();
      made = server;
      controller.abort(new LocalError("aborted", "stop"));
      return transport;
    };
    const client = new McpClient({ clientInfo });
    await assert.rejects(client.connect(factory, { signal: controller.signal }), /stop/);
    await closedFromFarEnd(made!);
    assert.deepEqual(made!.methods(), []);
  });

  it("an already aborted signal opens nothing", async () => {
    const { factory, servers } = silentServers();
    const client = new McpClient({ clientInfo });
    await assert.rejects(
      client.connect(factory, { signal: AbortSignal.abort() }),
      (error) => error instanceof LocalError && error.kind === "aborted",
    );
    assert.equal(servers.length, 0);
  });
});
