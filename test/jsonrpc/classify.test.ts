import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  classify,
  ErrorCode,
  JsonRpcError,
  LocalError,
  MissingRequiredClientCapabilityError,
  parseMessage,
  UnsupportedProtocolVersionError,
} from "../../src/jsonrpc/index.js";

function failureOf(text: string) {
  const result = parseMessage(text);
  assert.equal(result.ok, false, `expected ${text} to be rejected`);
  return result.ok ? assert.fail() : result;
}

describe("classify", () => {
  it("accepts the four kinds of message", () => {
    for (const text of [
      '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      '{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}',
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
      '{"jsonrpc":"2.0","id":1,"result":{}}',
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}',
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
    ]) {
      assert.equal(parseMessage(text).ok, true, text);
    }
  });

  it("answers bad JSON with -32700 and id null", () => {
    const failure = failureOf('{"jsonrpc":"2.0",');
    assert.equal(failure.error.code, ErrorCode.ParseError);
    assert.equal(failure.id, null);
  });

  it("rejects batches with -32600", () => {
    const failure = failureOf('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
    assert.equal(failure.error.code, ErrorCode.InvalidRequest);
    assert.match(failure.error.message, /batch/);
  });

  it("rejects null, fractional and object ids", () => {
    for (const id of ["null", "1.5", "{}", "true"]) {
      const failure = failureOf(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
      assert.equal(failure.error.code, ErrorCode.InvalidRequest, id);
      assert.equal(failure.id, null);
    }
  });

  it("rejects wrong or missing jsonrpc, bad method, bad params and ambiguous responses", () => {
    for (const text of [
      '{"id":1,"method":"ping"}',
      '{"jsonrpc":"1.0","id":1,"method":"ping"}',
      '{"jsonrpc":"2.0","id":1,"method":3}',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}',
      '{"jsonrpc":"2.0","id":1}',
      '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}',
      '{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}',
      '{"jsonrpc":"2.0","id":1,"result":5}',
      '"just a string"',
      "42",
    ]) {
      assert.equal(failureOf(text).error.code, ErrorCode.InvalidRequest, text);
    }
  });

  it("keeps the id of a readable but invalid request so the caller can correlate", () => {
    const failure = failureOf('{"jsonrpc":"2.0","id":7,"method":"x","params":"bad"}');
    assert.equal(failure.id, 7);
  });

  it("returns the value itself, not a copy", () => {
    const value = { jsonrpc: "2.0", id: 1, method: "ping" };
    const result = classify(value);
    assert.ok(result.ok);
    assert.equal(result.message, value);
  });
});

describe("errors", () => {
  it("rebuilds MCP error classes from the wire", () => {
    const unsupported = JsonRpcError.fromObject({
      code: -32022,
      message: "Unsupported",
      data: { supported: ["2026-07-28"], requested: "2099-01-01" },
    });
    assert.ok(unsupported instanceof UnsupportedProtocolVersionError);
    assert.deepEqual(unsupported.supported, ["2026-07-28"]);
    assert.equal(unsupported.requested, "2099-01-01");

    const missing = JsonRpcError.fromObject({
      code: -32021,
      message: "Missing",
      data: { requiredCapabilities: { elicitation: {} } },
    });
    assert.ok(missing instanceof MissingRequiredClientCapabilityError);
    assert.deepEqual(missing.requiredCapabilities, { elicitation: {} });
  });

  it("serialises MCP errors with the data the spec asks for", () => {
    assert.deepEqual(new UnsupportedProtocolVersionError(["2026-07-28"], "1999-01-01").toJSON(), {
      code: -32022,
      message: "Unsupported protocol version 1999-01-01; supported: 2026-07-28",
      data: { supported: ["2026-07-28"], requested: "1999-01-01" },
    });
    assert.deepEqual(new MissingRequiredClientCapabilityError({ sampling: {} }).toJSON().data, {
      requiredCapabilities: { sampling: {} },
    });
  });

  it("keeps local failures apart from peer errors", () => {
    const local = new LocalError("timeout", "timed out");
    assert.equal(local instanceof JsonRpcError, false);
    assert.equal(new JsonRpcError(-32603, "x") instanceof LocalError, false);
  });
});
