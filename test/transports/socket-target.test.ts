import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatSocketTarget, parseSocketTarget } from "../../src/transports/socket/target.js";

describe("parseSocketTarget / formatSocketTarget", () => {
  it("reads TCP and Unix addresses", () => {
    assert.deepEqual(parseSocketTarget("tcp://127.0.0.1:8080"), {
      kind: "tcp",
      host: "127.0.0.1",
      port: 8080,
    });
    assert.deepEqual(parseSocketTarget("tcp://localhost:0/"), {
      kind: "tcp",
      host: "localhost",
      port: 0,
    });
    assert.deepEqual(parseSocketTarget("tcp://[::1]:65535"), {
      kind: "tcp",
      host: "::1",
      port: 65535,
    });
    assert.deepEqual(parseSocketTarget("TCP://example.org:1"), {
      kind: "tcp",
      host: "example.org",
      port: 1,
    });
    assert.deepEqual(parseSocketTarget("unix:/run/mcp.sock"), {
      kind: "unix",
      path: "/run/mcp.sock",
    });
    assert.deepEqual(parseSocketTarget("unix:///run/mcp.sock"), {
      kind: "unix",
      path: "/run/mcp.sock",
    });
    assert.deepEqual(parseSocketTarget("unix:run/mcp.sock"), {
      kind: "unix",
      path: "run/mcp.sock",
    });
  });

  it("rejects what it cannot use, saying why", () => {
    const cases: Array<[string, RegExp]> = [
      ["127.0.0.1:80", /unsupported socket address/],
      ["http://127.0.0.1:80", /unsupported socket address/],
      ["tcp://127.0.0.1", /missing :port/],
      ["tcp://:80", /missing host/],
      ["tcp://host:", /port must be a number/],
      ["tcp://host:http", /port must be a number/],
      ["tcp://host:-1", /port must be a number/],
      ["tcp://host:65536", /out of range/],
      ["tcp://host:123456", /port must be a number/],
      ["tcp://::1:80", /IPv6 hosts in brackets/],
      ["tcp://[::1:80", /unterminated/],
      ["tcp://[::1]80", /missing :port/],
      ["tcp://[host]:80", /only for IPv6/],
      ["tcp://host:80/path", /no path/],
      ["tcp://user@host:80", /no path, user/],
      ["unix:", /missing path/],
      ["unix://", /use unix:\/abs\/path/],
      ["unix://host/path", /use unix:\/abs\/path/],
    ];
    for (const [text, reason] of cases) {
      assert.throws(() => parseSocketTarget(text), reason, text);
    }
  });

  it("formats what it parses", () => {
    for (const text of ["tcp://127.0.0.1:80", "tcp://[::1]:0", "unix:/a/b.sock", "unix:rel.sock"]) {
      assert.equal(formatSocketTarget(parseSocketTarget(text)), text);
    }
    assert.equal(formatSocketTarget(parseSocketTarget("unix:///a/b.sock")), "unix:/a/b.sock");
  });
});
