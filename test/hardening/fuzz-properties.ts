/**
 * Fuzz properties shared by `fuzz.test.ts` (a few hundred runs, part of npm test) and
 * `fuzz-long.ts` (`npm run fuzz`, many more). Each takes the number of runs.
 *
 * Invariants: nothing throws out of a parser, a check or a transport; a failure is always the
 * typed JSON-RPC error its contract names; every valid message surrounded by garbage is
 * delivered exactly once.
 */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import fc from "fast-check";
import { classify, isJsonRpcId, parseMessage } from "../../src/jsonrpc/classify.js";
import { ErrorCode, InvalidParamsError, JsonRpcError } from "../../src/jsonrpc/errors.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/types.js";
import { decodeHeaderValue, encodeHeaderValue } from "../../src/protocol/http-headers.js";
import { META } from "../../src/protocol/meta.js";
import { RequestStateCodec, type StateBinding } from "../../src/server/mrtr/request-state.js";
import { readSseReply } from "../../src/transports/http/client/reply-reader.js";
import { checkModernRequest } from "../../src/transports/http/request-checks.js";
import { encodeMessage } from "../../src/transports/ndjson.js";
import { StreamTransport } from "../../src/transports/stream.js";

export type Property = (runs: number) => void | Promise<void>;

const text = fc.oneof(
  fc.string({ maxLength: 16 }),
  fc.string({ unit: "binary", maxLength: 16 }),
  fc.constantFrom("é", "😀", "\u2028", "\uFEFF", "=?base64?", "?=", "\r", "\t", " "),
);

/** Any JSON-RPC-ish object: the right keys with random values, or random keys. */
const envelopeLike = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant("2.0"), fc.jsonValue()),
    id: fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 4 }), fc.constant(null)),
    method: fc.oneof(text, fc.jsonValue()),
    params: fc.oneof(fc.object(), fc.jsonValue()),
    result: fc.oneof(fc.object(), fc.jsonValue()),
    error: fc.oneof(
      fc.record({ code: fc.oneof(fc.integer(), fc.double()), message: fc.jsonValue() }),
      fc.jsonValue(),
    ),
  },
  { requiredKeys: [] },
);

function assertFailureShape(result: ReturnType<typeof classify>): void {
  if (result.ok) return;
  assert.ok(result.error instanceof JsonRpcError);
  assert.ok(
    result.error.code === ErrorCode.InvalidRequest || result.error.code === ErrorCode.ParseError,
  );
  assert.ok(result.id === null || isJsonRpcId(result.id));
}

/** classify() and parseMessage() never throw; failures are -32600/-32700 with a usable id. */
export const classifierNeverThrows: Property = (runs) => {
  fc.assert(
    fc.property(fc.oneof(fc.jsonValue(), envelopeLike, fc.anything()), (value) => {
      const result = classify(value);
      assertFailureShape(result);
      if (result.ok) assert.equal(result.message, value);
    }),
    { numRuns: runs },
  );
  fc.assert(
    fc.property(
      fc.oneof(
        text,
        fc.json(),
        envelopeLike.map((v) => JSON.stringify(v)),
      ),
      (raw) => {
        const result = parseMessage(raw);
        assertFailureShape(result);
        let parses = true;
        try {
          JSON.parse(raw);
        } catch {
          parses = false;
        }
        if (!parses) assert.ok(!result.ok && result.error.code === ErrorCode.ParseError);
      },
    ),
    { numRuns: runs },
  );
};

/** A valid message survives encoding and classifies to an equal message. */
export const classifierRoundTrip: Property = (runs) => {
  fc.assert(
    fc.property(envelopeLike, (value) => {
      const first = classify(value);
      if (!first.ok) return;
      const again = parseMessage(JSON.stringify(value));
      assert.ok(again.ok);
      assert.deepEqual(again.message, JSON.parse(JSON.stringify(value)));
    }),
    { numRuns: runs },
  );
};

/** Whatever encodeHeaderValue writes, decodeHeaderValue reads back unchanged. */
export const headerValueRoundTrip: Property = (runs) => {
  fc.assert(
    fc.property(fc.oneof(text, fc.string({ unit: "grapheme", maxLength: 24 })), (value) => {
      const encoded = encodeHeaderValue(value);
      // A header value must be visible ASCII to travel at all.
      assert.match(encoded, /^[\x20-\x7e]*$/);
      assert.deepEqual(decodeHeaderValue(encoded), { ok: true, value });
    }),
    { numRuns: runs },
  );
};

/** Random and mutated header values never make the decoder throw. */
export const headerDecodeNeverThrows: Property = (runs) => {
  const sentinel = fc
    .tuple(text, fc.nat(20), fc.string({ maxLength: 3 }))
    .map(([value, at, junk]) => {
      const encoded = encodeHeaderValue(`${value} `);
      return encoded.slice(0, at) + junk + encoded.slice(at);
    });
  fc.assert(
    fc.property(
      fc.oneof(
        text,
        sentinel,
        fc.base64String().map((b) => `=?base64?${b}?=`),
      ),
      (raw) => {
        const result = decodeHeaderValue(raw);
        if (result.ok) assert.equal(typeof result.value, "string");
        else assert.equal(typeof result.reason, "string");
      },
    ),
    { numRuns: runs },
  );
};

const VERSION = "2026-07-28";
const headerName = fc.constantFrom(
  "MCP-Protocol-Version",
  "Mcp-Method",
  "Mcp-Name",
  "Mcp-Param-Region",
  "Mcp-Param-Count",
  "Mcp-Param-Flag",
);
const visibleAscii = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map(String.fromCharCode),
  maxLength: 20,
});
const ROUTE_SCHEMA = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    count: { type: "integer", "x-mcp-header": "Count" },
    flag: { type: "boolean", "x-mcp-header": "Flag" },
  },
};
const CHECK_CODES = new Set<number>([
  ErrorCode.HeaderMismatch,
  ErrorCode.InvalidParams,
  ErrorCode.UnsupportedProtocolVersion,
]);

/**
 * checkModernRequest() over random headers and bodies (some with the headers a conforming client
 * would derive, then perturbed) never throws, and answers undefined or one of -32020/-32602/-32022.
 */
export const requestChecksNeverThrow: Property = (runs) => {
  const args = fc.record(
    {
      region: fc.oneof(text, fc.jsonValue()),
      count: fc.oneof(fc.integer(), fc.double(), fc.jsonValue()),
      flag: fc.oneof(fc.boolean(), fc.jsonValue()),
    },
    { requiredKeys: [] },
  );
  const body = fc.record({
    method: fc.constantFrom("tools/call", "tools/list", "prompts/get", "resources/read"),
    name: fc.oneof(fc.constant("route"), text),
    uri: text,
    arguments: fc.oneof(args, fc.jsonValue()),
    version: fc.oneof(fc.constant(VERSION), text),
    capabilities: fc.oneof(fc.constant({}), fc.jsonValue()),
  });
  const headers = fc.array(fc.tuple(headerName, visibleAscii), { maxLength: 6 });
  fc.assert(
    fc.property(body, headers, fc.boolean(), (b, extra, conforming) => {
      const request = {
        jsonrpc: "2.0" as const,
        id: 1,
        method: b.method,
        params: {
          name: b.name,
          uri: b.uri,
          arguments: b.arguments,
          _meta: { [META.protocolVersion]: b.version, [META.clientCapabilities]: b.capabilities },
        },
      } as Parameters<typeof checkModernRequest>[1];
      const h = new Headers();
      if (conforming) {
        h.set("MCP-Protocol-Version", encodeHeaderValue(b.version));
        h.set("Mcp-Method", b.method);
        h.set("Mcp-Name", encodeHeaderValue(b.method === "resources/read" ? b.uri : b.name));
      }
      for (const [name, value] of extra) h.set(name, value);
      const context = {
        supportedVersions: [VERSION],
        toolInputSchema: (name: string) => (name === "route" ? ROUTE_SCHEMA : undefined),
      };
      const result = checkModernRequest(h, request, context);
      if (result !== undefined) {
        assert.ok(result instanceof JsonRpcError);
        assert.ok(CHECK_CODES.has(result.code), `${result.code} ${result.message}`);
      }
    }),
    { numRuns: runs },
  );
};

const rpcMessage: fc.Arbitrary<JsonRpcMessage> = fc.oneof(
  fc
    .record({ id: fc.nat(), s: text })
    .map(({ id, s }): JsonRpcMessage => ({ jsonrpc: "2.0", id, method: "m", params: { s } })),
  text.map((s): JsonRpcMessage => ({ jsonrpc: "2.0", method: "notifications/x", params: { s } })),
  fc
    .record({ id: fc.string({ maxLength: 6 }), s: text })
    .map(({ id, s }): JsonRpcMessage => ({ jsonrpc: "2.0", id, result: { s } })),
);

/** SSE lines that carry no message: comments, unknown fields, ids, retries, blank-data events. */
const sseGarbage = fc.oneof(
  visibleAscii.map((s) => `:${s}\n`),
  visibleAscii.map((s) => `x-unknown: ${s}\n`),
  fc.nat(99_999).map((n) => `retry: ${n}\n`),
  fc.string({ unit: fc.constantFrom("a", "1", "-"), maxLength: 6 }).map((s) => `id: ${s}\n`),
  fc.constant('event: other\ndata: {"ignored":true}\n\n'),
  fc.constant("\n"),
);

/** Splits `bytes` at the given cut points (so multi-byte characters get cut too). */
function chunk(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    if (point > start) chunks.push(bytes.slice(start, point));
    start = Math.max(start, point);
  }
  if (start < bytes.length) chunks.push(bytes.slice(start));
  return chunks;
}

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const piece of chunks) controller.enqueue(piece);
      controller.close();
    },
  });
}

/**
 * The HTTP client's SSE wiring (eventsource-parser via readSseReply): any chunking of a stream
 * of messages interleaved with comments, unknown fields, ids and retries, in LF, CRLF or CR line
 * ends, delivers every message exactly once, in order; non-JSON data is reported, never thrown.
 */
export const sseReaderDeliversOnce: Property = async (runs) => {
  const item = fc.oneof(
    { weight: 3, arbitrary: rpcMessage.map((message) => ({ message })) },
    { weight: 2, arbitrary: sseGarbage.map((garbage) => ({ garbage })) },
    { weight: 1, arbitrary: visibleAscii.map((junk) => ({ junk: `data: ${junk}\n\n` })) },
  );
  await fc.assert(
    fc.asyncProperty(
      fc.array(item, { maxLength: 12 }),
      fc.constantFrom("\n", "\r\n", "\r"),
      fc.array(fc.nat(4096), { maxLength: 10 }),
      async (items, newline, cuts) => {
        let wire = "";
        const expected: JsonRpcMessage[] = [];
        let junkFrames = 0;
        for (const entry of items) {
          if ("message" in entry) {
            expected.push(entry.message);
            wire += `event: message\ndata: ${JSON.stringify(entry.message)}\n\n`;
          } else if ("garbage" in entry) {
            wire += entry.garbage;
          } else {
            const parsed = parseMessage(entry.junk.slice(6, -2));
            if (entry.junk.slice(6, -2).trim() !== "" && !parsed.ok) junkFrames++;
            else if (parsed.ok) expected.push(parsed.message);
            wire += entry.junk;
          }
        }
        // A garbage line right before a message must not merge with it: end every event.
        wire = `${wire}\n`.replaceAll("\n", newline);
        const delivered: JsonRpcMessage[] = [];
        let invalid = 0;
        const reply = await readSseReply(
          streamOf(chunk(new TextEncoder().encode(wire), cuts)),
          undefined,
          { message: (message) => delivered.push(message), invalid: () => invalid++ },
          {},
        );
        assert.equal(reply, undefined);
        assert.deepEqual(delivered, expected);
        assert.equal(invalid, junkFrames);
      },
    ),
    { numRuns: runs },
  );
};

const codec = new RequestStateCodec({ secret: "a fuzzing secret of enough bytes" });
const binding: StateBinding = { method: "tools/call", target: "book", principal: undefined };

function expectInvalidParams(run: () => unknown): void {
  assert.throws(run, (error: unknown) => error instanceof InvalidParamsError);
}

/**
 * The MRTR requestState codec: a sealed state opens; any mutation of it never verifies; any
 * other value fails with -32602 and nothing else.
 */
export const requestStateTamperProof: Property = (runs) => {
  const answers = fc.dictionary(
    fc.string({ maxLength: 6 }),
    fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    { maxKeys: 3 },
  );
  const state = fc.record({
    round: fc.integer({ min: 1, max: 8 }),
    answers,
    asked: fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
  });
  const mutation = fc.oneof(
    fc.record({
      kind: fc.constant("flip" as const),
      at: fc.nat(),
      by: fc.integer({ min: 1, max: 127 }),
    }),
    fc.record({
      kind: fc.constant("insert" as const),
      at: fc.nat(),
      junk: fc.string({ minLength: 1, maxLength: 3 }),
    }),
    fc.record({
      kind: fc.constant("delete" as const),
      at: fc.nat(),
      count: fc.integer({ min: 1, max: 4 }),
    }),
    fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
  );
  fc.assert(
    fc.property(state, mutation, (round, change) => {
      const token = codec.seal(binding, round);
      assert.deepEqual(codec.open(token, binding), JSON.parse(JSON.stringify(round)));
      const at = change.at % token.length;
      let mutated: string;
      switch (change.kind) {
        case "flip":
          mutated =
            token.slice(0, at) +
            String.fromCharCode(token.charCodeAt(at) ^ change.by) +
            token.slice(at + 1);
          break;
        case "insert":
          mutated = token.slice(0, at) + change.junk + token.slice(at);
          break;
        case "delete":
          mutated = token.slice(0, at) + token.slice(at + change.count);
          break;
        case "truncate":
          mutated = token.slice(0, at);
          break;
      }
      fc.pre(mutated !== token);
      expectInvalidParams(() => codec.open(mutated, binding));
    }),
    { numRuns: runs },
  );
  fc.assert(
    fc.property(fc.oneof(text, fc.base64String(), fc.anything()), (value) => {
      expectInvalidParams(() => codec.open(value, binding));
    }),
    { numRuns: runs },
  );
};

/** A line that is not a valid JSON-RPC message (no newline inside). */
const garbageLine = fc
  .oneof(
    text,
    fc.jsonValue().map((value) => JSON.stringify(value)),
    envelopeLike.map((value) => JSON.stringify(value)),
  )
  .map((line) => line.replace(/[\r\n]/g, " "))
  .filter((line) => line.trim() !== "" && !parseMessage(line).ok);

/**
 * A StreamTransport (the core of stdio and sockets) fed valid messages between garbage lines,
 * in random chunks: each valid message arrives exactly once and in order, each garbage line is
 * one frame error, and nothing throws out of the transport.
 */
export const streamTransportDeliversOnce: Property = async (runs) => {
  const line = fc.oneof(
    rpcMessage.map((message) => ({ message })),
    garbageLine.map((garbage) => ({ garbage })),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.array(line, { maxLength: 12 }),
      fc.array(fc.nat(4096), { maxLength: 10 }),
      async (lines, cuts) => {
        const input = new PassThrough();
        const output = new PassThrough();
        output.resume();
        const transport = new StreamTransport(input, output);
        const delivered: JsonRpcMessage[] = [];
        let frameErrors = 0;
        const closed = new Promise<void>((resolve) => {
          transport.start({
            message: (message) => delivered.push(message),
            frameError: () => frameErrors++,
            ended: () => resolve(),
            closed: () => resolve(),
          });
        });
        const bytes = Buffer.from(
          lines
            .map((entry) =>
              "message" in entry ? encodeMessage(entry.message).toString() : `${entry.garbage}\n`,
            )
            .join(""),
        );
        for (const piece of chunk(bytes, cuts)) input.write(piece);
        input.end();
        await closed;
        await transport.close();
        const expected = lines.flatMap((entry) => ("message" in entry ? [entry.message] : []));
        assert.deepEqual(delivered, expected);
        assert.equal(frameErrors, lines.length - expected.length);
      },
    ),
    { numRuns: runs },
  );
};

/** Every property, by name, for the short and the long runner. */
export const PROPERTIES: Record<string, Property> = {
  "classifier never throws; failures are -32600/-32700 with a usable id": classifierNeverThrows,
  "classifier accepts its own valid messages after a JSON round trip": classifierRoundTrip,
  "header values survive encode → decode": headerValueRoundTrip,
  "header decoding never throws on random or mutated values": headerDecodeNeverThrows,
  "request checks never throw and answer only -32020/-32602/-32022": requestChecksNeverThrow,
  "SSE reader delivers each message once under any chunking and garbage": sseReaderDeliversOnce,
  "requestState: mutations never verify, junk is only ever -32602": requestStateTamperProof,
  "stream transport delivers each valid message once between garbage lines":
    streamTransportDeliversOnce,
};
