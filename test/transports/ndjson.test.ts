import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { ErrorCode, LocalError } from "../../src/jsonrpc/errors.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/types.js";
import type { FrameError } from "../../src/protocol/transport.js";
import {
  DEFAULT_MAX_MESSAGE_SIZE,
  encodeMessage,
  NdjsonDecoder,
  type NdjsonDecoderOptions,
  NdjsonWriter,
} from "../../src/transports/ndjson.js";
import { until } from "../helpers/poll.js";

function collect(options?: NdjsonDecoderOptions) {
  const messages: JsonRpcMessage[] = [];
  const errors: FrameError[] = [];
  const decoder = new NdjsonDecoder(
    { message: (m) => messages.push(m), frameError: (e) => errors.push(e) },
    options,
  );
  return { decoder, messages, errors };
}

function note(n: number | string, extra: Record<string, unknown> = {}): JsonRpcMessage {
  return { jsonrpc: "2.0", method: "notifications/test", params: { n, ...extra } };
}

function bytes(...parts: Array<string | Buffer>): Buffer {
  return Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : p)));
}

/** Feeds `data` cut at the given offsets, then ends the stream. */
function feed(decoder: NdjsonDecoder, data: Buffer, cuts: number[]): void {
  let previous = 0;
  for (const cut of [...cuts, data.length]) {
    decoder.push(data.subarray(previous, cut));
    previous = cut;
  }
  decoder.end();
}

function everyByte(data: Buffer): number[] {
  return Array.from({ length: data.length - 1 }, (_, i) => i + 1);
}

/** A notification whose encoded line is exactly `size` (>= 48) bytes, newline excluded. */
function messageOfSize(size: number, tag = "m"): { message: JsonRpcMessage; line: string } {
  const shape = (pad: string): JsonRpcMessage => ({
    jsonrpc: "2.0",
    method: tag,
    params: { p: pad },
  });
  const empty = encodeMessage(shape("")).length - 1;
  const message = shape("x".repeat(size - empty));
  const line = encodeMessage(message).slice(0, -1);
  assert.equal(Buffer.byteLength(line), size);
  return { message, line };
}

function invalidCode(error: FrameError | undefined): number {
  assert.ok(error && error.kind === "invalid", `expected an invalid frame, got ${error?.kind}`);
  return error.failure.error.code;
}

describe("NdjsonDecoder framing", () => {
  it("delivers many messages from one chunk, in order", () => {
    const { decoder, messages, errors } = collect();
    const sent = Array.from({ length: 50 }, (_, i) => note(i));
    decoder.push(Buffer.from(sent.map(encodeMessage).join("")));
    assert.deepEqual(messages, sent);
    assert.deepEqual(errors, []);
    assert.equal(decoder.bufferedBytes, 0);
  });

  it("assembles one message from many chunks, 1 byte at a time and in odd sizes", () => {
    const sent = note("spread", { text: "a long-ish value ".repeat(20) });
    const data = Buffer.from(encodeMessage(sent));
    for (const step of [1, 2, 7, 64]) {
      const { decoder, messages, errors } = collect();
      const cuts = [];
      for (let at = step; at < data.length; at += step) cuts.push(at);
      let previous = 0;
      for (const cut of cuts) {
        decoder.push(data.subarray(previous, cut));
        previous = cut;
        assert.deepEqual(messages, [], "nothing is delivered before the newline");
      }
      decoder.push(data.subarray(previous));
      assert.deepEqual(messages, [sent], `step ${step}`);
      assert.deepEqual(errors, []);
      assert.equal(decoder.bufferedBytes, 0);
    }
  });

  for (const [label, character, width] of [
    ["2-byte é", "é", 2],
    ["3-byte €", "€", 3],
    ["4-byte 😀", "😀", 4],
  ] as const) {
    it(`keeps a ${label} intact when a chunk boundary falls at every byte offset`, () => {
      assert.equal(Buffer.byteLength(character), width);
      // A complete line before, so the split line is also tested behind a decoded neighbour.
      const before = note(0, { s: character });
      const split = note(1, { s: `a${character}b${character}`, [character]: character });
      const data = Buffer.from(encodeMessage(before) + encodeMessage(split));
      for (let cut = 1; cut < data.length; cut++) {
        const { decoder, messages, errors } = collect();
        feed(decoder, data, [cut]);
        assert.deepEqual(messages, [before, split], `cut at byte ${cut}`);
        assert.deepEqual(errors, []);
      }
      // And every boundary at once.
      const { decoder, messages } = collect();
      feed(decoder, data, everyByte(data));
      assert.deepEqual(messages, [before, split]);
    });
  }

  it("tolerates CRLF line ends, also when the CR and LF arrive in different chunks", () => {
    const sent = [note(1), note(2), note(3)];
    const data = Buffer.from(sent.map((m) => encodeMessage(m).replace("\n", "\r\n")).join(""));
    for (let cut = 1; cut < data.length; cut++) {
      const { decoder, messages, errors } = collect();
      feed(decoder, data, [cut]);
      assert.deepEqual(messages, sent, `cut at ${cut}`);
      assert.deepEqual(errors, []);
    }
  });

  it("keeps a carriage return that is not followed by a newline as part of the line", () => {
    // Inside JSON a CR is insignificant whitespace, so this line is valid with it...
    const { decoder, messages, errors } = collect();
    decoder.push(Buffer.from('{"jsonrpc":"2.0",\r'));
    decoder.push(Buffer.from('"method":"m"}\n'));
    assert.deepEqual(messages, [{ jsonrpc: "2.0", method: "m" }]);
    // ...and between two values it is garbage, reported with its full size.
    const garbage = `${encodeMessage(note(1)).slice(0, -1)}\r${encodeMessage(note(2)).slice(0, -1)}`;
    decoder.push(Buffer.from(`${garbage.slice(0, garbage.indexOf("\r") + 1)}`));
    decoder.push(Buffer.from(`${garbage.slice(garbage.indexOf("\r") + 1)}\n`));
    assert.equal(errors.length, 1);
    assert.equal(invalidCode(errors[0]), ErrorCode.ParseError);
    assert.equal(errors[0]!.size, Buffer.byteLength(garbage));
    assert.equal(messages.length, 1);
  });

  it("skips empty and whitespace-only lines silently", () => {
    const { decoder, messages, errors } = collect();
    const data = bytes(
      "\n\n",
      encodeMessage(note(1)),
      "   \n\t\n \t \r\n\r\n\n",
      encodeMessage(note(2)),
      "  \t  ",
    );
    feed(decoder, data, [3, 40]);
    assert.deepEqual(messages, [note(1), note(2)]);
    assert.deepEqual(errors, []);
  });

  it("tolerates JSON whitespace around a message on its line", () => {
    const { decoder, messages, errors } = collect();
    decoder.push(Buffer.from(` \t${encodeMessage(note(1)).slice(0, -1)} \t\r\n`));
    assert.deepEqual(messages, [note(1)]);
    assert.deepEqual(errors, []);
  });

  it("delivers a final message without newline at end(), and end() twice is harmless", () => {
    const { decoder, messages, errors } = collect();
    decoder.push(Buffer.from(encodeMessage(note(1)) + encodeMessage(note(2)).slice(0, -1)));
    assert.deepEqual(messages, [note(1)]);
    decoder.end();
    assert.deepEqual(messages, [note(1), note(2)]);
    decoder.end();
    assert.deepEqual(messages, [note(1), note(2)]);
    assert.deepEqual(errors, []);
    assert.equal(decoder.bufferedBytes, 0);
  });

  it("delivers a final line ended by a lone CR at end()", () => {
    const { decoder, messages, errors } = collect();
    decoder.push(Buffer.from(`${encodeMessage(note(1)).slice(0, -1)}\r`));
    decoder.end();
    decoder.end();
    assert.deepEqual(messages, [note(1)]);
    assert.deepEqual(errors, []);
  });
});

describe("NdjsonDecoder byte order mark", () => {
  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

  it("skips a BOM at stream start, however the chunks split it", () => {
    const data = bytes(BOM, encodeMessage(note(1)), encodeMessage(note(2)));
    for (const cuts of [[], [1], [2], [3], [1, 2], [1, 2, 3], [2, 4], everyByte(data)]) {
      const { decoder, messages, errors } = collect();
      feed(decoder, data, cuts);
      assert.deepEqual(messages, [note(1), note(2)], `cuts ${cuts.slice(0, 4)}`);
      assert.deepEqual(errors, []);
    }
  });

  it("skips a BOM at stream start before a blank line", () => {
    const { decoder, messages, errors } = collect();
    feed(decoder, bytes(BOM, "\r\n", encodeMessage(note(1))), [1]);
    assert.deepEqual(messages, [note(1)]);
    assert.deepEqual(errors, []);
  });

  it("does not eat a BOM anywhere else", () => {
    const { decoder, messages, errors } = collect();
    const data = bytes(
      encodeMessage(note(1)),
      BOM,
      encodeMessage(note(2)), // a BOM at the start of a later line
      BOM,
      "\n", // a line holding only a BOM
      encodeMessage(note(3, { s: "\uFEFF" })), // inside a string it is content
    );
    feed(decoder, data, []);
    assert.deepEqual(messages, [note(1), note(3, { s: "\uFEFF" })]);
    assert.equal(errors.length, 2);
    for (const error of errors) assert.equal(invalidCode(error), ErrorCode.ParseError);
  });

  it("does not eat a BOM that follows a leading newline", () => {
    const { decoder, messages, errors } = collect();
    feed(decoder, bytes("\n", BOM, encodeMessage(note(1))), []);
    assert.deepEqual(messages, []);
    assert.equal(invalidCode(errors[0]), ErrorCode.ParseError);
  });

  it("gives back bytes that only began like a BOM", () => {
    const { decoder, messages, errors } = collect();
    // EF BB then "{": not a BOM, so the line is garbage (it must not lose its first bytes).
    const data = bytes(BOM.subarray(0, 2), encodeMessage(note(1)), encodeMessage(note(2)));
    feed(decoder, data, [1, 2]);
    assert.deepEqual(messages, [note(2)]);
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.size, 2 + encodeMessage(note(1)).length - 1);

    const alone = collect();
    alone.decoder.push(BOM.subarray(0, 1));
    alone.decoder.end();
    assert.equal(alone.errors.length, 1);
    assert.equal(alone.errors[0]!.size, 1);
  });
});

describe("NdjsonDecoder scale (must stay linear)", () => {
  it("decodes a 64 MB message arriving in 64 KB chunks", () => {
    const size = 64 * 1024 * 1024;
    // Built as bytes directly, to spare the test a few copies of 64 MB strings.
    const data = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":7,"result":{"text":"'),
      Buffer.alloc(size, "0123456789abcdef"),
      Buffer.from('é😀"}}\n'),
    ]);
    const { decoder, messages, errors } = collect({ maxMessageSize: 80 * 1024 * 1024 });
    for (let offset = 0; offset < data.length; offset += 64 * 1024) {
      decoder.push(data.subarray(offset, offset + 64 * 1024));
    }
    decoder.end();
    assert.deepEqual(errors, []);
    assert.equal(messages.length, 1);
    const received = messages[0] as unknown as { id: number; result: { text: string } };
    assert.equal(received.id, 7);
    const text = received.result.text;
    assert.equal(text.length, size + 3);
    assert.ok(/^(?:0123456789abcdef)*é😀$/.test(text), "content differs");
  });

  it("decodes 100,000 tiny messages in one chunk, and in 64 KB chunks", () => {
    const sent = Array.from({ length: 100_000 }, (_, i) => note(i));
    const data = Buffer.from(sent.map(encodeMessage).join(""));
    for (const chunkSize of [data.length, 64 * 1024]) {
      const { decoder, messages, errors } = collect();
      for (let offset = 0; offset < data.length; offset += chunkSize) {
        decoder.push(data.subarray(offset, offset + chunkSize));
      }
      decoder.end();
      assert.deepEqual(errors, []);
      assert.equal(messages.length, sent.length);
      assert.deepEqual(messages, sent);
    }
  });
});

describe("NdjsonDecoder size limit", () => {
  it("defaults to 32 MiB; Infinity lifts it; a non-positive limit throws", () => {
    assert.equal(DEFAULT_MAX_MESSAGE_SIZE, 32 * 1024 * 1024);
    assert.equal(collect().decoder.maxMessageSize, 32 * 1024 * 1024);
    assert.equal(
      collect({ maxMessageSize: Number.POSITIVE_INFINITY }).decoder.maxMessageSize,
      Number.POSITIVE_INFINITY,
    );
    for (const bad of [0, -1, -0, Number.NaN, Number.NEGATIVE_INFINITY]) {
      assert.throws(() => collect({ maxMessageSize: bad }), RangeError, String(bad));
    }
  });

  it("rejects a 33 MiB line at the default limit but delivers it with Infinity", () => {
    const size = 33 * 1024 * 1024;
    const data = Buffer.from(
      encodeMessage({ jsonrpc: "2.0", id: 1, result: { s: "y".repeat(size) } }) +
        encodeMessage(note("after")),
    );
    const limited = collect();
    const lifted = collect({ maxMessageSize: Number.POSITIVE_INFINITY });
    for (const { decoder } of [limited, lifted]) {
      for (let offset = 0; offset < data.length; offset += 64 * 1024) {
        decoder.push(data.subarray(offset, offset + 64 * 1024));
        assert.ok(decoder === lifted.decoder || decoder.bufferedBytes <= DEFAULT_MAX_MESSAGE_SIZE);
      }
      decoder.end();
    }
    assert.deepEqual(limited.errors, [
      {
        kind: "oversized",
        size: data.length - encodeMessage(note("after")).length - 1,
        limit: DEFAULT_MAX_MESSAGE_SIZE,
      },
    ]);
    assert.deepEqual(limited.messages, [note("after")]);
    assert.equal(lifted.errors.length, 0);
    assert.equal(lifted.messages.length, 2);
  });

  it("drops a line oversized within one chunk and delivers its neighbours", () => {
    const { decoder, messages, errors } = collect({ maxMessageSize: 100 });
    const big = messageOfSize(150).line;
    decoder.push(bytes(encodeMessage(note(0)), big, "\n", encodeMessage(note(2))));
    assert.deepEqual(messages, [note(0), note(2)]);
    assert.deepEqual(errors, [{ kind: "oversized", size: 150, limit: 100 }]);
  });

  it("drops a line growing across many chunks with ONE error naming its full size", () => {
    const limit = 1000;
    const { decoder, messages, errors } = collect({ maxMessageSize: limit });
    const big = messageOfSize(25_000).line;
    const data = bytes(encodeMessage(note(0)), big, "\r\n", encodeMessage(note(2)), "  ");
    for (let offset = 0; offset < data.length; offset += 97) {
      decoder.push(data.subarray(offset, offset + 97));
      assert.ok(decoder.bufferedBytes <= limit, `buffered ${decoder.bufferedBytes}`);
    }
    decoder.end();
    assert.deepEqual(messages, [note(0), note(2)]);
    assert.deepEqual(errors, [{ kind: "oversized", size: 25_000, limit }]);
  });

  it("delivers the next message from the very chunk that ends an oversized line", () => {
    const { decoder, messages, errors } = collect({ maxMessageSize: 80 });
    decoder.push(Buffer.from("x".repeat(40)));
    assert.equal(decoder.bufferedBytes, 40);
    decoder.push(Buffer.from("x".repeat(40)));
    assert.equal(decoder.bufferedBytes, 80);
    decoder.push(Buffer.from("x".repeat(40)));
    assert.equal(decoder.bufferedBytes, 0, "an oversized line is not kept");
    decoder.push(bytes("xxxxx\n", encodeMessage(note(1)).slice(0, 10)));
    decoder.push(Buffer.from(encodeMessage(note(1)).slice(10)));
    assert.deepEqual(errors, [{ kind: "oversized", size: 125, limit: 80 }]);
    assert.deepEqual(messages, [note(1)]);
  });

  it("reports an oversized final line without newline at end(), once", () => {
    const { decoder, messages, errors } = collect({ maxMessageSize: 10 });
    decoder.push(Buffer.from("y".repeat(15)));
    decoder.push(Buffer.from("y".repeat(15)));
    decoder.end();
    decoder.end();
    assert.deepEqual(errors, [{ kind: "oversized", size: 30, limit: 10 }]);
    assert.deepEqual(messages, []);
  });

  it("never rejects a frame because a neighbour shares its chunk", () => {
    const { decoder, messages, errors } = collect({ maxMessageSize: 100 });
    const a = messageOfSize(60, "a");
    const b = messageOfSize(60, "b");
    decoder.push(Buffer.from(`${a.line}\n${b.line}\n`));
    assert.deepEqual(messages, [a.message, b.message]);
    assert.deepEqual(errors, []);
  });

  it("accepts a line of exactly the limit however it is cut, and rejects limit + 1", () => {
    const limit = 120;
    const exact = messageOfSize(limit, "a");
    const over = messageOfSize(limit + 1, "b");
    for (const ending of ["\n", "\r\n"]) {
      const data = Buffer.from(`${exact.line}${ending}${over.line}${ending}${exact.line}`);
      for (let cut = 1; cut < data.length; cut++) {
        const { decoder, messages, errors } = collect({ maxMessageSize: limit });
        decoder.push(data.subarray(0, cut));
        assert.ok(decoder.bufferedBytes <= limit);
        decoder.push(data.subarray(cut));
        decoder.end();
        assert.deepEqual(messages, [exact.message, exact.message], `cut ${cut} ${ending}`);
        assert.deepEqual(errors, [{ kind: "oversized", size: limit + 1, limit }]);
      }
    }
  });

  it("handles oversized lines inside one huge chunk without decoding them", () => {
    const { decoder, messages, errors } = collect({ maxMessageSize: 200 });
    const sent = Array.from({ length: 20_000 }, (_, i) => note(i));
    const parts: string[] = [];
    for (const [i, m] of sent.entries()) {
      parts.push(encodeMessage(m));
      if (i % 1000 === 0) parts.push(`${"z".repeat(5000)}\r\n`);
    }
    decoder.push(Buffer.from(parts.join("")));
    decoder.end();
    assert.deepEqual(messages, sent);
    assert.equal(errors.length, 20);
    for (const error of errors)
      assert.deepEqual(error, { kind: "oversized", size: 5000, limit: 200 });
  });
});

describe("NdjsonDecoder invalid lines", () => {
  it("reports non-JSON with -32700 and id null, then goes on", () => {
    const { decoder, messages, errors } = collect();
    decoder.push(bytes("this is not json\n", '{"jsonrpc":"2.0",\n', encodeMessage(note(1))));
    assert.deepEqual(messages, [note(1)]);
    assert.equal(errors.length, 2);
    for (const error of errors) {
      assert.equal(invalidCode(error), ErrorCode.ParseError);
      assert.equal(error.kind === "invalid" && error.failure.id, null);
    }
    assert.equal(errors[0]!.size, "this is not json".length);
  });

  it("reports JSON that is not JSON-RPC with -32600, then goes on", () => {
    const { decoder, messages, errors } = collect();
    const lines = ["[]", '{"foo":1}', '{"jsonrpc":"2.0","id":null,"method":"x"}', "42"];
    decoder.push(Buffer.from(`${lines.join("\n")}\n${encodeMessage(note(1))}`));
    assert.deepEqual(messages, [note(1)]);
    assert.deepEqual(
      errors.map((e) => [invalidCode(e), e.size]),
      lines.map((l) => [ErrorCode.InvalidRequest, l.length]),
    );
  });

  it("survives invalid UTF-8, even right before a newline", () => {
    const data = bytes(
      Buffer.from([0xff, 0xfe, 0x0a]),
      Buffer.from([0x7b, 0xe2, 0x82, 0x0a]), // "{" and a truncated "€"
      Buffer.from([0xf0, 0x9f, 0x0d, 0x0a]), // a truncated "😀" before CRLF
      encodeMessage(note(1)),
    );
    for (const cuts of [[], [2], [5, 9], everyByte(data)]) {
      const run = collect();
      feed(run.decoder, data, cuts);
      assert.deepEqual(run.messages, [note(1)]);
      assert.deepEqual(
        run.errors.map((e) => [invalidCode(e), e.size]),
        [
          [ErrorCode.ParseError, 2],
          [ErrorCode.ParseError, 3],
          [ErrorCode.ParseError, 2],
        ],
      );
    }
  });
});

describe("encodeMessage", () => {
  it("writes one line, with no raw line break inside, that reads back the same", () => {
    const tricky = 'a\nb\rc\r\nd\u2028e\u2029f\u0085g\u000bh\u0000i"j\\k😀é€\uFEFF\ud800';
    const message: JsonRpcMessage = {
      jsonrpc: "2.0",
      id: "x\ny",
      method: "tools/call",
      params: { [tricky]: tricky, list: [tricky, { nested: tricky }] },
    };
    const line = encodeMessage(message);
    assert.ok(line.endsWith("\n"));
    const body = line.slice(0, -1);
    for (const character of ["\n", "\r", "\u2028", "\u2029"]) {
      assert.ok(!body.includes(character), `raw ${JSON.stringify(character)} in the line`);
    }
    const wire = Buffer.from(line);
    assert.equal(wire.indexOf(0x0a), wire.length - 1);
    assert.equal(wire.indexOf(0x0d), -1);
    assert.deepEqual(JSON.parse(body), message);

    const { decoder, messages } = collect();
    decoder.push(wire);
    assert.deepEqual(messages, [message]);
  });

  it("leaves messages without line separators as JSON.stringify writes them", () => {
    const message = note(1, { s: "plain é😀" });
    assert.equal(encodeMessage(message), `${JSON.stringify(message)}\n`);
  });

  it("throws on a value JSON cannot carry", () => {
    assert.throws(() => encodeMessage(note(1, { big: 1n })));
  });
});

/**
 * A real Writable that completes each write later (setImmediate), with a tiny buffer, so
 * backpressure really happens. Every call to write() is checked: none may happen while the stream
 * has reported itself full and 'drain' has not yet been emitted.
 */
class SlowWritable extends Writable {
  readonly received: Buffer[] = [];
  writeCalls = 0;
  falseReturns = 0;
  writesWhileFull = 0;
  private full = false;
  hold = false;

  constructor() {
    super({ highWaterMark: 256 });
    // Registered before any NdjsonWriter's listener, so the flag clears before it writes again.
    this.on("drain", () => {
      this.full = false;
    });
  }

  override write(chunk: unknown, ...rest: unknown[]): boolean {
    this.writeCalls++;
    if (this.full) this.writesWhileFull++;
    const ok = (super.write as (...args: unknown[]) => boolean)(chunk, ...rest);
    if (!ok) {
      this.full = true;
      this.falseReturns++;
    }
    return ok;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error) => void): void {
    this.received.push(chunk);
    if (!this.hold) setImmediate(done);
    // When holding, the write never completes: output is stuck, like a peer that stops reading.
  }

  lines(): string[] {
    const text = Buffer.concat(this.received).toString();
    assert.ok(text === "" || text.endsWith("\n"), "the byte stream ends mid-line");
    return text === "" ? [] : text.slice(0, -1).split("\n");
  }
}

describe("NdjsonWriter", () => {
  it("coalescing: a turn's lines leave 16 at a time at once, the rest on the next macrotask", async () => {
    const chunks: string[] = [];
    const stream = new Writable({
      highWaterMark: 1024 * 1024,
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString("utf8"));
        done();
      },
    });
    const writer = new NdjsonWriter(stream, stream.write, { coalesce: true });
    const sent = Array.from({ length: 40 }, (_, i) => note(i));
    const written = sent.map((message) => writer.write(message));
    // Two full groups went within the turn, so a peer can start on them; eight lines wait.
    assert.deepEqual(
      chunks.map((chunk) => chunk.split("\n").length - 1),
      [16, 16],
    );
    await Promise.all(written);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      chunks.map((chunk) => chunk.split("\n").length - 1),
      [16, 16, 8],
    );
    assert.deepEqual(
      chunks
        .join("")
        .slice(0, -1)
        .split("\n")
        .map((line) => JSON.parse(line)),
      sent,
    );
  });

  it("waits for drain after write() returns false, resolves every promise, keeps order", async () => {
    const stream = new SlowWritable();
    const writer = new NdjsonWriter(stream);
    const sent = Array.from({ length: 300 }, (_, i) => note(i, { pad: "p".repeat(i % 50) }));
    let resolved = 0;
    const promises = sent.map((m) => writer.write(m).then(() => resolved++));
    assert.equal(stream.writeCalls < sent.length, true, "lines beyond the buffer must wait");
    await Promise.all(promises);
    assert.equal(resolved, sent.length);
    assert.ok(stream.falseReturns > 0, "the test never produced backpressure");
    assert.equal(stream.writesWhileFull, 0);
    assert.equal(stream.writeCalls, sent.length);
    assert.deepEqual(
      stream.lines().map((l) => JSON.parse(l)),
      sent,
    );
  });

  it("writes a large line's text and newline apart, still one whole line, in order", async () => {
    const stream = new SlowWritable();
    const writer = new NdjsonWriter(stream);
    const big = "x".repeat(200 * 1024);
    const sent = [note(0), note(1, { big }), note(2), note(3, { big: `${big}y` }), note(4)];
    await Promise.all(sent.map((message) => writer.write(message)));
    assert.deepEqual(
      stream.lines().map((line) => JSON.parse(line)),
      sent,
    );
    // Each large line is two writes (text, then "\n": the only write made while full).
    assert.equal(stream.writeCalls, sent.length + 2);
    assert.equal(stream.writesWhileFull, 2);
    assert.ok(stream.received.some((chunk) => chunk.length === 1 && chunk[0] === 0x0a));
  });

  it("never interleaves the lines of concurrent writers", async () => {
    const stream = new SlowWritable();
    const writer = new NdjsonWriter(stream);
    const callOrder: JsonRpcMessage[] = [];
    const producer = async (name: string) => {
      for (let i = 0; i < 100; i++) {
        const message = note(i, { producer: name, body: `${name}😀`.repeat(1 + (i % 30)) });
        callOrder.push(message);
        const written = writer.write(message);
        // Some producers wait for their write, some fire several before awaiting.
        if (name === "a" || i % 7 === 0) await written;
      }
    };
    await Promise.all(["a", "b", "c", "d"].map(producer));
    await writer.idle();
    assert.equal(stream.writesWhileFull, 0);
    const lines = stream.lines();
    assert.equal(lines.length, callOrder.length);
    assert.deepEqual(
      lines.map((l) => JSON.parse(l)),
      callOrder,
    );
  });

  it("idle() resolves once the queue is empty", async () => {
    const stream = new SlowWritable();
    const writer = new NdjsonWriter(stream);
    await writer.idle(); // nothing queued: resolves at once
    let resolved = 0;
    for (let i = 0; i < 100; i++)
      void writer.write(note(i, { pad: "q".repeat(40) })).then(() => resolved++);
    assert.ok(resolved < 100);
    await writer.idle();
    assert.equal(resolved, 100);
    assert.equal(stream.lines().length, 100);
  });

  it("rejects pending and new writes with LocalError 'closed' once the stream is destroyed", async () => {
    const stream = new SlowWritable();
    stream.hold = true;
    const writer = new NdjsonWriter(stream);
    const settled: Array<unknown> = [];
    const pending = Array.from({ length: 20 }, (_, i) =>
      writer.write(note(i, { pad: "r".repeat(50) })).then(
        () => settled.push("ok"),
        (error) => settled.push(error),
      ),
    );
    const idle = writer.idle();
    await until(() => stream.falseReturns > 0, "backpressure");
    stream.destroy();
    await Promise.all(pending);
    await idle;
    const failures = settled.filter((s) => s !== "ok");
    assert.ok(failures.length > 0, "some writes must have been pending");
    for (const failure of failures) {
      assert.ok(failure instanceof LocalError);
      assert.equal(failure.kind, "closed");
    }
    await assert.rejects(writer.write(note("late")), (error: unknown) => {
      return error instanceof LocalError && error.kind === "closed";
    });
  });

  it("rejects with LocalError 'closed' when the stream errors, keeping the cause", async () => {
    const stream = new SlowWritable();
    stream.hold = true;
    const writer = new NdjsonWriter(stream);
    const pending = Array.from({ length: 20 }, (_, i) =>
      writer.write(note(i, { pad: "s".repeat(50) })).catch((error: unknown) => error),
    );
    await until(() => stream.falseReturns > 0, "backpressure");
    const boom = new Error("boom");
    stream.destroy(boom);
    const outcomes = await Promise.all(pending);
    const failure = outcomes.find((o) => o instanceof LocalError) as LocalError | undefined;
    assert.ok(failure, "a pending write must fail");
    assert.equal(failure.kind, "closed");
    assert.equal(failure.cause, boom);
    await assert.rejects(writer.write(note("late")), { name: "LocalError", kind: "closed" });
  });

  it("rejects at once on a stream that closed before the writer was attached", async () => {
    const stream = new SlowWritable();
    stream.destroy();
    await new Promise((resolve) => stream.once("close", resolve));
    const writer = new NdjsonWriter(stream);
    await assert.rejects(writer.write(note(1)), { name: "LocalError", kind: "closed" });
    await writer.idle();
  });

  it("rejects a message that cannot be serialised, and goes on", async () => {
    const stream = new SlowWritable();
    const writer = new NdjsonWriter(stream);
    await assert.rejects(writer.write(note(1, { big: 1n })), {
      name: "LocalError",
      kind: "transport",
    });
    await writer.write(note(2));
    await writer.idle();
    assert.deepEqual(
      stream.lines().map((l) => JSON.parse(l)),
      [note(2)],
    );
  });

  it("dispose() fails queued writes and stops watching the stream", async () => {
    const stream = new SlowWritable();
    stream.hold = true;
    const writer = new NdjsonWriter(stream);
    const pending = Array.from({ length: 20 }, (_, i) =>
      writer.write(note(i, { pad: "t".repeat(50) })).catch((error: unknown) => error),
    );
    writer.dispose();
    const outcomes = await Promise.all(pending);
    assert.ok(outcomes.some((o) => o instanceof LocalError && o.kind === "closed"));
    assert.equal(stream.listenerCount("drain"), 1); // only SlowWritable's own
    stream.destroy();
  });
});
