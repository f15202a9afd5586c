import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { LocalError } from "../../src/jsonrpc/errors.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/types.js";
import { LazyAbort, listenForAbort } from "../../src/protocol/lazy-abort.js";
import { Session } from "../../src/protocol/session.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import { until } from "../helpers/poll.js";

// Cancellation without an AbortSignal made up front (RequestOptions.abort, a handler context's
// whenAborted): the same outcomes as the signal, told by plain callbacks.

function linkedSessions() {
  const [a, b] = createMemoryPair();
  const server = new Session(a);
  const client = new Session(b);
  server.start();
  client.start();
  return { server, client };
}

/** A client session whose peer records what it receives and answers nothing. */
function silentPeer() {
  const [mine, theirs] = createMemoryPair();
  const client = new Session(mine);
  const received: JsonRpcMessage[] = [];
  theirs.start({ message: (message) => received.push(message) });
  client.start();
  return { client, peer: theirs, received };
}

describe("LazyAbort.whenAborted", () => {
  it("tells each listener once, with the reason, and a signal made later is aborted too", () => {
    const abort = new LazyAbort();
    const heard: unknown[] = [];
    abort.whenAborted((reason) => heard.push(`a: ${reason}`));
    abort.whenAborted((reason) => heard.push(`b: ${reason}`));
    assert.equal(abort.abort("gone"), true);
    assert.equal(abort.abort("again"), false);
    assert.deepEqual(heard, ["a: gone", "b: gone"]);
    assert.equal(abort.signal.aborted, true);
    assert.equal(abort.signal.reason, "gone");
  });

  it("a listener that stopped listening is not told; one added after the abort is, at once", () => {
    const abort = new LazyAbort();
    const heard: string[] = [];
    const stop = abort.whenAborted(() => heard.push("stopped"));
    abort.whenAborted(() => heard.push("kept"));
    stop();
    abort.abort("gone");
    abort.whenAborted((reason) => heard.push(`late: ${reason}`));
    assert.deepEqual(heard, ["kept", "late: gone"]);
  });

  it("listenForAbort gives a plain AbortSignal the same behaviour", () => {
    const controller = new AbortController();
    const heard: unknown[] = [];
    const stop = listenForAbort(controller.signal, (reason) => heard.push(reason));
    listenForAbort(controller.signal, (reason) => heard.push(`second: ${reason}`))();
    controller.abort("gone");
    controller.abort("again");
    stop();
    listenForAbort(controller.signal, (reason) => heard.push(`late: ${reason}`));
    assert.deepEqual(heard, ["gone", "late: gone"]);
  });
});

describe("RequestOptions.abort", () => {
  it("cancels the request as a signal would: rejected with the reason, the peer told", async () => {
    const { client, received } = silentPeer();
    const abort = new LazyAbort();
    const pending = client.request("wait", {}, { abort });
    await until(() => received.length === 1);
    abort.abort(new LocalError("timeout", "the server did not answer in time"));
    await assert.rejects(pending, { name: "LocalError", kind: "timeout" });
    await until(() => received.length === 2);
    const cancelled = received[1] as { method?: string; params?: unknown };
    assert.equal(cancelled.method, "notifications/cancelled");
    assert.deepEqual(cancelled.params, {
      requestId: 1,
      reason: "the server did not answer in time",
    });
    await client.close();
  });

  it("an abort that already happened rejects at once and sends nothing", async () => {
    const { client, received } = silentPeer();
    const abort = new LazyAbort();
    abort.abort("never mind");
    await assert.rejects(client.request("wait", {}, { abort }), {
      name: "LocalError",
      kind: "aborted",
      message: "wait cancelled: never mind",
    });
    await delay(10);
    assert.deepEqual(received, []);
    await client.close();
  });

  it("after the reply an abort changes nothing: no cancellation goes out", async () => {
    const { server, client } = linkedSessions();
    const sent: string[] = [];
    server.setRequestHandler("echo", (params) => params);
    const abort = new LazyAbort();
    assert.deepEqual(await client.request("echo", { n: 1 }, { abort }), { n: 1 });
    const wire = client.transport.send.bind(client.transport);
    client.transport.send = (message, options) => {
      sent.push((message as { method?: string }).method ?? "reply");
      return wire(message, options);
    };
    abort.abort("late");
    await delay(10);
    assert.deepEqual(sent, []);
    await client.close();
  });
});

describe("an incoming request's whenAborted", () => {
  it("tells the handler of the client's cancellation without its reading signal", async () => {
    const { server, client } = linkedSessions();
    let told: unknown;
    server.setRequestHandler("wait", async (_params, context) => {
      told = await new Promise((resolve) => context.whenAborted!(resolve));
      return {};
    });
    const controller = new AbortController();
    const pending = client.request("wait", {}, { signal: controller.signal });
    await until(() => server.activeRequests === 1);
    controller.abort("user gave up");
    await assert.rejects(pending, { kind: "aborted" });
    await until(() => told !== undefined);
    assert.ok(told instanceof LocalError);
    assert.equal(told.kind, "aborted");
    await client.close();
  });
});
