import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { JsonRpcError, LocalError } from "../../src/jsonrpc/errors.js";
import type { JsonObject, JsonRpcMessage } from "../../src/jsonrpc/types.js";
import { Session, type SessionOptions } from "../../src/protocol/session.js";
import type { Transport, TransportReceiver } from "../../src/protocol/transport.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import { StreamTransport } from "../../src/transports/stream.js";
import { mockClock, rejection, track } from "../helpers/mock-clock.js";
import { until } from "../helpers/poll.js";

function linkedSessions(serverOptions: SessionOptions = {}, clientOptions: SessionOptions = {}) {
  const [a, b] = createMemoryPair();
  const server = new Session(a, { answerFrameErrors: true, ...serverOptions });
  const client = new Session(b, clientOptions);
  return { server, client };
}

/** A transport end driven by hand: records what the session sent, injects what it receives. */
function rawPeer() {
  const [mine, theirs] = createMemoryPair();
  const received: JsonRpcMessage[] = [];
  theirs.start({ message: (message) => received.push(message) });
  return { transport: mine as Transport, peer: theirs, received };
}

/** A session's transport over two pipes, as stdio gives: ending `input` is EOF, a half-close. */
function pipedPeer() {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: JsonObject[] = [];
  let buffered = "";
  output.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split("\n");
    buffered = parts.pop()!;
    for (const part of parts) lines.push(JSON.parse(part));
  });
  const send = (message: unknown) => input.write(`${JSON.stringify(message)}\n`);
  return { transport: new StreamTransport(input, output), input, lines, send };
}

describe("Session", () => {
  it("correlates many concurrent requests answered out of order", async () => {
    const { server, client } = linkedSessions();
    server.setRequestHandler("echo", async (params) => {
      await delay(Math.floor(Math.random() * 20));
      return { echoed: params.n };
    });
    server.start();
    client.start();
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, n) => client.request("echo", { n })),
    );
    assert.deepEqual(
      results.map((result) => result.echoed),
      Array.from({ length: 200 }, (_, n) => n),
    );
    await client.close();
  });

  it("surfaces peer errors as JsonRpcError and unknown methods as -32601", async () => {
    const { server, client } = linkedSessions();
    server.setRequestHandler("fail", () => {
      throw new JsonRpcError(-32099, "custom failure", { why: "test" });
    });
    server.setRequestHandler("bug", () => {
      throw new TypeError("oops");
    });
    server.start();
    client.start();
    await assert.rejects(client.request("fail"), (error: unknown) => {
      assert.ok(error instanceof JsonRpcError);
      assert.equal(error.code, -32099);
      assert.deepEqual(error.data, { why: "test" });
      return true;
    });
    await assert.rejects(client.request("nope"), { code: -32601 });
    await assert.rejects(client.request("bug"), { code: -32603, message: "oops" });
    await client.close();
  });

  it("times out, cancels on the wire, and drops the late reply quietly", async (t) => {
    const clock = mockClock(t);
    const { transport, peer, received } = rawPeer();
    const errors: Error[] = [];
    const client = new Session(transport, { onProtocolError: (error) => errors.push(error) });
    client.start();
    const pending = track(client.request("slow", {}, { timeoutMs: 50 }));
    await clock.advance(49);
    assert.equal(pending.now().state, "pending", "not a millisecond early");
    assert.equal(received.length, 1);
    await clock.advance(1);
    const error = rejection(pending.now());
    assert.ok(error instanceof LocalError);
    assert.equal(error.kind, "timeout");
    assert.match(error.message, /slow timed out after 50 ms/);
    const [request, cancel] = received as unknown as [JsonObject, JsonObject];
    assert.equal(request.method, "slow");
    assert.equal(cancel.method, "notifications/cancelled");
    assert.equal((cancel.params as JsonObject).requestId, request.id);
    await peer.send({ jsonrpc: "2.0", id: request.id as number, result: {} });
    await clock.settle();
    assert.equal(client.pendingRequests, 0);
    assert.equal(errors.length, 1, "late reply is only reported as a diagnostic");
    await client.close();
  });

  it("cancels through an AbortSignal and the handler sees its signal abort", async () => {
    const { server, client } = linkedSessions();
    let handlerSignal: AbortSignal | undefined;
    let replied = false;
    server.setRequestHandler("wait", async (_params, context) => {
      handlerSignal = context.signal;
      await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
      replied = true;
      return {};
    });
    server.start();
    client.start();
    const controller = new AbortController();
    const pending = client.request("wait", {}, { signal: controller.signal });
    await until(() => handlerSignal !== undefined);
    controller.abort("user gave up");
    await assert.rejects(pending, { name: "LocalError", kind: "aborted" });
    await until(() => handlerSignal?.aborted === true);
    await until(() => replied);
    await delay(20);
    assert.equal(server.activeRequests, 0);
    await client.close();
  });

  /** A server whose "work" handler reports progress, or finishes, when the test says so. */
  function steppedWork() {
    const { server, client } = linkedSessions();
    const work = {
      started: false,
      step: (_progress: number): Promise<void> => Promise.reject(new Error("not started")),
      finish: () => {},
    };
    server.setRequestHandler(
      "work",
      (params, context) =>
        new Promise((resolve) => {
          const token = (params._meta as JsonObject).progressToken;
          work.started = true;
          work.step = (progress) =>
            context.notify("notifications/progress", { progressToken: token, progress });
          work.finish = () => resolve({ done: true });
          context.signal.addEventListener("abort", () => resolve({}));
        }),
    );
    server.start();
    client.start();
    return { server, client, work };
  }

  it("routes progress to the caller and resets the timeout on progress when asked", async (t) => {
    const clock = mockClock(t);
    const { client, work } = steppedWork();
    const seen: number[] = [];
    const pending = track(
      client.request(
        "work",
        {},
        {
          timeoutMs: 120,
          resetTimeoutOnProgress: true,
          onProgress: (progress) => seen.push(progress.progress),
        },
      ),
    );
    await clock.settle();
    assert.ok(work.started);
    // Five steps 100 ms apart: 500 ms in all, each gap under the 120 ms timeout.
    for (let step = 1; step <= 5; step++) {
      await clock.advance(100);
      await work.step(step);
      await clock.settle();
    }
    work.finish();
    await clock.settle();
    assert.deepEqual(pending.now(), { state: "fulfilled", value: { done: true } });
    assert.deepEqual(seen, [1, 2, 3, 4, 5]);
    await client.close();
  });

  it("times out without progress resetting it unless asked", async (t) => {
    const clock = mockClock(t);
    const { client, work } = steppedWork();
    const pending = track(client.request("work", {}, { timeoutMs: 120, onProgress: () => {} }));
    await clock.advance(100);
    await work.step(1);
    await clock.advance(19);
    assert.equal(pending.now().state, "pending");
    await clock.advance(1);
    assert.equal((rejection(pending.now()) as LocalError).kind, "timeout");
    await client.close();
  });

  it("enforces the maximum total timeout even while progress keeps arriving", async (t) => {
    const clock = mockClock(t);
    const { server, client, work } = steppedWork();
    const pending = track(
      client.request(
        "work",
        {},
        {
          timeoutMs: 100,
          resetTimeoutOnProgress: true,
          maxTotalTimeoutMs: 300,
          onProgress: () => {},
        },
      ),
    );
    for (let step = 1; step <= 4; step++) {
      await clock.advance(70);
      await work.step(step);
    }
    await clock.advance(19); // 299 ms since the request
    assert.equal(pending.now().state, "pending");
    await clock.advance(1);
    assert.equal((rejection(pending.now()) as LocalError).kind, "timeout");
    await clock.settle();
    assert.equal(server.activeRequests, 0, "the server saw the cancellation");
    await client.close();
  });

  it("answers unreadable frames with -32700 / -32600 and id null, and goes on", async () => {
    const { transport, input, lines } = pipedPeer();
    const server = new Session(transport, { answerFrameErrors: true });
    server.setRequestHandler("ping", () => ({}));
    server.start();
    input.write(
      'not json\n{"jsonrpc":"2.0","method":5,"id":2}\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
    );
    await until(() => lines.length === 3);
    assert.equal((lines[0]!.error as JsonObject).code, -32700);
    assert.equal(lines[0]!.id, null);
    assert.equal((lines[1]!.error as JsonObject).code, -32600);
    assert.equal(lines[1]!.id, 2);
    assert.deepEqual(lines[2], { jsonrpc: "2.0", id: 1, result: {} });
    await server.close();
  });

  it("rejects a duplicate in-flight id without disturbing the first request", async () => {
    const { transport, peer, received } = rawPeer();
    const server = new Session(transport);
    server.setRequestHandler("slow", async () => {
      await delay(50);
      return { first: true };
    });
    server.start();
    await peer.send({ jsonrpc: "2.0", id: 9, method: "slow" });
    await peer.send({ jsonrpc: "2.0", id: 9, method: "slow" });
    await until(() => received.length === 2);
    assert.equal((received[0] as { error: { code: number } }).error.code, -32600);
    assert.deepEqual((received[1] as { result: JsonObject }).result, { first: true });
    await server.close();
  });

  it("sends nothing for a request cancelled by notifications/cancelled", async (t) => {
    const clock = mockClock(t);
    const { transport, peer, received } = rawPeer();
    const server = new Session(transport);
    server.setRequestHandler("slow", async (_params, context) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await context.notify("notifications/progress", { progressToken: 1, progress: 1 });
      return { late: true };
    });
    server.start();
    await peer.send({ jsonrpc: "2.0", id: 3, method: "slow" });
    await peer.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 3, reason: "no longer needed" },
    });
    await clock.advance(50);
    assert.deepEqual(received, []);
    await server.close();
  });

  it("on input end aborts handlers, lets their replies flush within the grace period, then closes", async (t) => {
    const clock = mockClock(t);
    const { transport, input, lines, send } = pipedPeer();
    const server = new Session(transport, { shutdownGraceMs: 1000 });
    server.setRequestHandler("finishing", async (_params, context) => {
      await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
      await new Promise((resolve) => setTimeout(resolve, 30));
      return { flushed: context.signal.aborted };
    });
    server.start();
    let closed = false;
    void server.closed.then(() => (closed = true));
    send({ jsonrpc: "2.0", id: 1, method: "finishing" });
    await clock.settle();
    input.end();
    await clock.advance(29);
    assert.equal(closed, false, "the handler is still finishing");
    await clock.advance(1);
    assert.equal(closed, true, "closed once the handlers finished, not after the whole grace");
    assert.deepEqual(lines, [{ jsonrpc: "2.0", id: 1, result: { flushed: true } }]);

    const second = pipedPeer();
    const stuck = new Session(second.transport, { shutdownGraceMs: 100 });
    stuck.setRequestHandler("stubborn", () => new Promise<JsonObject>(() => {}));
    stuck.start();
    let stuckClosed = false;
    void stuck.closed.then(() => (stuckClosed = true));
    second.send({ jsonrpc: "2.0", id: 1, method: "stubborn" });
    await clock.settle();
    second.input.end();
    await clock.advance(99);
    assert.equal(stuckClosed, false);
    await clock.advance(1);
    assert.equal(
      stuckClosed,
      true,
      "bounded by the grace period although the handler never settles",
    );
  });

  it("rejects every pending request at once when the transport closes", async () => {
    const { transport, peer } = rawPeer();
    const client = new Session(transport);
    client.start();
    const pending = [client.request("a"), client.request("b")];
    await delay(10);
    await peer.close();
    for (const request of pending) {
      await assert.rejects(request, (error: unknown) => error instanceof LocalError);
    }
    await assert.rejects(client.request("c"), (error: unknown) => error instanceof LocalError);
  });

  it("hands unregistered traffic to its dispatcher, registered handlers first, and tells it of the close", async () => {
    const [serverSide, clientSide] = createMemoryPair();
    const heard: string[] = [];
    let closedWith: unknown;
    const server = new Session(
      serverSide,
      {},
      {
        handleRequest: (params, context) => ({ dispatched: context.method, n: params.n ?? null }),
        handleNotification: (method) => heard.push(method),
        sessionClosed: (info) => {
          closedWith = info;
        },
      },
    );
    server.setRequestHandler("own", () => ({ own: true }));
    const client = new Session(clientSide);
    server.start();
    client.start();
    assert.deepEqual(await client.request("own"), { own: true });
    assert.deepEqual(await client.request("any/method", { n: 3 }), {
      dispatched: "any/method",
      n: 3,
    });
    await client.notify("notifications/initialized");
    // The session's own notifications never reach the dispatcher.
    await client.notify("notifications/cancelled", { requestId: 99 });
    await client.notify("notifications/progress", { progressToken: 1, progress: 1 });
    await until(() => heard.length === 1);
    await delay(10);
    assert.deepEqual(heard, ["notifications/initialized"]);
    assert.equal(closedWith, undefined);
    await client.close();
    await server.closed;
    assert.deepEqual(closedWith, {});
  });

  it("answers -32601 without a dispatcher, and lets a registered handler replace notifications/cancelled", async () => {
    const { server, client } = linkedSessions();
    const cancelled: JsonObject[] = [];
    server.setNotificationHandler("notifications/cancelled", (params) => cancelled.push(params));
    let signal: AbortSignal | undefined;
    server.setRequestHandler("wait", async (_params, context) => {
      signal = context.signal;
      await delay(50);
      return { finished: true };
    });
    server.start();
    client.start();
    await assert.rejects(
      client.request("nothing/here"),
      (error: unknown) => error instanceof JsonRpcError && error.code === -32601,
    );
    const controller = new AbortController();
    const waiting = client.request("wait", {}, { signal: controller.signal });
    await until(() => signal !== undefined);
    controller.abort();
    await assert.rejects(waiting);
    await until(() => cancelled.length === 1);
    // The replacement took the notification: the handler's own signal never fired.
    assert.equal(signal?.aborted, false);
  });

  it("answers a plain-value handler within the delivering call, a promise once it settles", async () => {
    // A transport driven by hand: delivery is a direct call, sends are recorded as they happen.
    const sent: JsonRpcMessage[] = [];
    let receiver: TransportReceiver | undefined;
    const transport: Transport = {
      start: (given) => {
        receiver = given;
      },
      send: (message) => {
        sent.push(message);
        return Promise.resolve();
      },
      close: async () => {},
      closed: new Promise(() => {}),
    };
    const session = new Session(transport);
    session.setRequestHandler("sum", (params) => ({ total: Number(params.a) + Number(params.b) }));
    session.setRequestHandler("broken", () => {
      throw new JsonRpcError(-32099, "broken at once");
    });
    let settle: (value: JsonObject) => void = () => {};
    session.setRequestHandler(
      "later",
      () => new Promise<JsonObject>((resolve) => (settle = resolve)),
    );
    session.start();
    receiver!.message({ jsonrpc: "2.0", id: 1, method: "sum", params: { a: 1, b: 2 } });
    assert.deepEqual(sent, [{ jsonrpc: "2.0", id: 1, result: { total: 3 } }]);
    receiver!.message({ jsonrpc: "2.0", id: 2, method: "broken" });
    assert.deepEqual(sent[1], {
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32099, message: "broken at once" },
    });
    receiver!.message({ jsonrpc: "2.0", id: 3, method: "later" });
    assert.equal(sent.length, 2);
    settle({ done: true });
    await until(() => sent.length === 3);
    assert.deepEqual(sent[2], { jsonrpc: "2.0", id: 3, result: { done: true } });
    // The id is free again once answered: a second request under it is served, not refused.
    receiver!.message({ jsonrpc: "2.0", id: 1, method: "sum", params: { a: 2, b: 2 } });
    assert.deepEqual(sent[3], { jsonrpc: "2.0", id: 1, result: { total: 4 } });
  });
});
