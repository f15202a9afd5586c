import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LocalError } from "../../src/jsonrpc/errors.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/types.js";
import type {
  CloseInfo,
  FrameError,
  Transport,
  TransportReceiver,
} from "../../src/protocol/transport.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import { until } from "../helpers/poll.js";

interface Recorded {
  messages: JsonRpcMessage[];
  frameErrors: FrameError[];
  events: string[];
  closedInfos: CloseInfo[];
}

/** Starts `transport` with a receiver that records everything; ended() only if asked for. */
function record(transport: Transport, onEnded?: () => void): Recorded {
  const recorded: Recorded = { messages: [], frameErrors: [], events: [], closedInfos: [] };
  const receiver: TransportReceiver = {
    message(message) {
      recorded.messages.push(message);
      recorded.events.push(`message ${"method" in message ? message.method : "reply"}`);
    },
    frameError(error) {
      recorded.frameErrors.push(error);
    },
    closed(info) {
      recorded.closedInfos.push(info);
      recorded.events.push("closed");
    },
  };
  if (onEnded) {
    receiver.ended = () => {
      recorded.events.push("ended");
      onEnded();
    };
  }
  transport.start(receiver);
  return recorded;
}

const note = (method: string, params: Record<string, unknown> = {}): JsonRpcMessage => ({
  jsonrpc: "2.0",
  method,
  params,
});

function isLocalError(kind: string) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof LocalError, `expected a LocalError, got ${error}`);
    assert.equal(error.kind, kind);
    return true;
  };
}

describe("createMemoryPair", () => {
  it("delivers in order, in both directions, never inside send()", async () => {
    const [left, right] = createMemoryPair();
    const atLeft = record(left);
    const atRight = record(right);
    for (let n = 0; n < 500; n += 1) {
      void left.send(note("to-right", { n }));
      void right.send(note("to-left", { n }));
    }
    await left.send(note("to-right", { n: 500 }));
    // Not even a microtask later: delivery is a task of its own, as on a real channel.
    assert.equal(atRight.messages.length, 0);
    assert.equal(atLeft.messages.length, 0);
    await until(() => atRight.messages.length === 501 && atLeft.messages.length === 500, "all");
    const expected = (method: string, count: number) =>
      Array.from({ length: count }, (_, n) => note(method, { n }));
    assert.deepEqual(atRight.messages, expected("to-right", 501));
    assert.deepEqual(atLeft.messages, expected("to-left", 500));
    await Promise.all([left.close(), right.close()]);
  });

  it("keeps messages sent before the other side starts, and delivers them on start", async () => {
    const [left, right] = createMemoryPair();
    await left.send(note("first"));
    await left.send(note("second"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const atRight = record(right);
    await left.send(note("third"));
    await until(() => atRight.messages.length === 3, "three messages");
    assert.deepEqual(
      atRight.messages.map((message) => ("method" in message ? message.method : "")),
      ["first", "second", "third"],
    );
    await left.close();
    await right.closed;
  });

  it("copies through JSON by default: no aliasing, and what JSON cannot carry is rejected", async () => {
    const [left, right] = createMemoryPair();
    const atRight = record(right);
    const list = [1, 2];
    const sent = note("tools/call", { nested: { list }, gone: undefined });
    await left.send(sent);
    list.push(3); // mutation after send has no effect
    await until(() => atRight.messages.length === 1, "the message");
    const received = atRight.messages[0]!;
    assert.notEqual(received, sent);
    assert.deepEqual(received, note("tools/call", { nested: { list: [1, 2] } }));

    await assert.rejects(left.send(note("big", { n: 10n })), isLocalError("transport"));
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await assert.rejects(left.send(note("loop", circular)), isLocalError("transport"));
    await assert.rejects(
      left.send(undefined as unknown as JsonRpcMessage),
      isLocalError("transport"),
    );
    // What is not a JSON-RPC message reaches the other side as a frame error, as it would on a wire.
    await left.send({ jsonrpc: "1.0", id: 7, method: "old" } as unknown as JsonRpcMessage);
    await left.send(note("after"));
    await until(() => atRight.messages.length === 2, "the message after the bad one");
    assert.equal(atRight.frameErrors.length, 1);
    const frameError = atRight.frameErrors[0]!;
    assert.equal(frameError.kind, "invalid");
    assert.equal(frameError.kind === "invalid" && frameError.failure.id, 7);
    await left.close();
  });

  it("hands the very object over with serialize: false", async () => {
    const [left, right] = createMemoryPair({ serialize: false });
    const atRight = record(right);
    record(left);
    const sent = note("x", { big: 10n });
    await left.send(sent);
    await until(() => atRight.messages.length === 1, "the message");
    assert.equal(atRight.messages[0], sent);
    await right.close();
    await left.closed;
  });

  it("closing one side ends the other, which closes when it chooses", async () => {
    const [left, right] = createMemoryPair();
    const atLeft = record(left);
    let finishRight: (() => void) | undefined;
    const atRight = record(right, () => {
      finishRight = () => void right.close();
    });
    await left.send(note("before close"));
    await left.close();
    assert.deepEqual(await left.closed, {});
    await assert.rejects(left.send(note("too late")), isLocalError("closed"));

    await until(() => atRight.events.includes("ended"), "ended() on the other side");
    assert.deepEqual(atRight.events, ["message before close", "ended"]);
    // Still open after ended(): it may send (to nobody now) until it closes.
    await right.send(note("into the void"));
    finishRight!();
    assert.deepEqual(await right.closed, {});
    assert.deepEqual(atRight.events, ["message before close", "ended", "closed"]);
    assert.deepEqual(atLeft.events, ["closed"], "nothing reaches a closed side");
    await assert.rejects(right.send(note("too late")), isLocalError("closed"));
    await Promise.all([left.close(), right.close()]); // idempotent
    assert.equal(atLeft.closedInfos.length, 1);
    assert.equal(atRight.closedInfos.length, 1);
  });

  it("closes a side without an ended() handler when the other closes", async () => {
    const [left, right] = createMemoryPair();
    const atRight = record(right);
    record(left);
    void left.send(note("last"));
    void left.close();
    const [leftInfo, rightInfo] = await Promise.all([left.closed, right.closed]);
    assert.deepEqual([leftInfo, rightInfo], [{}, {}]);
    assert.deepEqual(atRight.events, ["message last", "closed"]);
  });

  it("lets timers run while the two sides answer each other without end", async () => {
    const [left, right] = createMemoryPair();
    const limit = 100_000;
    let rounds = 0;
    const echo = (transport: Transport) => (message: JsonRpcMessage) => {
      rounds += 1;
      if (rounds < limit) transport.send(message).catch(() => {});
    };
    left.start({ message: echo(left) });
    right.start({ message: echo(right) });
    await left.send(note("ping"));
    // Once the exchange runs, a timer must still get its turn. Were delivery a microtask, it
    // could only fire once all the rounds were over. (Waiting for the first round first: on a
    // loaded machine a 20 ms timer may come due before the first delivery.)
    await until(() => rounds > 0, "the first round");
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(rounds < limit, `${rounds} rounds before the timer`);
    await left.close();
    await right.closed;
  });

  it("can be started only once", async () => {
    const [left, right] = createMemoryPair();
    left.start({ message() {} });
    assert.throws(() => left.start({ message() {} }), /already started/);
    await left.close();
    await right.close();
  });
});
