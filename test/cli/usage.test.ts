import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCli, STDIO_SERVER } from "./run-cli.js";
import { runInProcess } from "./run-in-process.js";

/**
 * Every mistake in the command line: one line on stderr, nothing on stdout, exit 2. They are
 * found before anything connects or starts, so they run in process against run(); what needs a
 * real server, and the real bin (main.test.ts), are subprocess tests.
 */
async function assertUsageError(args: string[], message: RegExp): Promise<void> {
  const run = await runInProcess(args);
  assert.equal(run.code, 2, run.stderr);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /^mcpwire: [^\n]+\n$/);
  assert.match(run.stderr, message);
}

describe("mcpwire command-line errors", () => {
  it("rejects targets it cannot read", async () => {
    await assertUsageError(
      ["discover", "ftp://example.com"],
      /unsupported target "ftp:\/\/example\.com"/,
    );
    await assertUsageError(["discover", "tcp://localhost"], /invalid TCP address .*missing :port/);
    await assertUsageError(["discover", "http://[bad"], /invalid URL/);
    await assertUsageError(["discover"], /missing target/);
  });

  it("mcpwire alone prints the usage on stderr and exits 2", async () => {
    const run = await runInProcess([]);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, "");
    assert.match(
      run.stderr,
      /^mcpwire — Model Context Protocol[\s\S]*Usage:\n {2}mcpwire discover/,
    );
  });

  it("a bare word as tool arguments says key=value or JSON is expected", async () => {
    // call reads its arguments once connected, so this one starts a real server: a subprocess.
    const run = await runCli(["call", "echo", "hello", "--", process.execPath, STDIO_SERVER]);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stdout, "");
    assert.match(
      run.stderr,
      /^mcpwire: tool arguments: expected key=value or JSON, got "hello"\n$/,
    );
  });

  it("an unknown tool is named with the tools the server has", async () => {
    const run = await runCli(["call", "ecoh", "--", process.execPath, STDIO_SERVER]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^mcpwire: no tool "ecoh" on the server; it has: echo, add\b.*\n$/);
  });

  it("rejects unknown options, bad option values and bad JSON", async () => {
    await assertUsageError(["discover", "--frob", "tcp://127.0.0.1:9"], /unknown option --frob/);
    await assertUsageError(["discover", "--era", "future", "tcp://127.0.0.1:9"], /--era must be/);
    await assertUsageError(["discover", "--timeout", "soon", "tcp://127.0.0.1:9"], /--timeout/);
    await assertUsageError(
      ["call", "--header", "nocolon", "http://127.0.0.1:9/mcp", "x"],
      /--header/,
    );
    await assertUsageError(["discover", "--"], /nothing after --/);
    await assertUsageError(
      ["gateway", "--listen", "nowhere", "--", "node"],
      /--listen must be host:port/,
    );
    await assertUsageError(
      ["gateway", "--listen", "127.0.0.1:0"],
      /gateway needs the server's command/,
    );
  });

  it("gateway --stdio <url> refuses what only an HTTP-serving gateway acts on", async () => {
    for (const flags of [
      ["--allow-tools", "x_*"],
      ["--deny-tools", "x"],
      ["--audit-log", "/tmp/audit.jsonl"],
      ["--rate-limit", "5/1s"],
      ["--max-result-bytes", "1000"],
      ["--token", "secret"],
      ["--auth-issuer", "https://issuer.example"],
      ["--cors"],
      ["--era", "legacy"],
    ]) {
      const name = flags[0]!.slice(2);
      await assertUsageError(
        ["gateway", "--stdio", "http://127.0.0.1:9/mcp", ...flags],
        new RegExp(`does not take --${name}: it serves one local client over stdio`),
      );
    }
  });

  it("prints help for the command and for each verb", async () => {
    const top = await runInProcess(["--help"]);
    assert.equal(top.code, 0);
    assert.match(top.stdout, /mcpwire discover <target>/);
    for (const verb of ["discover", "call", "read", "prompt", "raw", "gateway"]) {
      const run = await runInProcess([verb, "--help"]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`^Usage: mcpwire ${verb} `));
    }
  });

  it("a refused connection is a run-time failure: one line, exit 1", async () => {
    const run = await runInProcess(["discover", "tcp://127.0.0.1:1"]);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^mcpwire: nothing is listening at tcp:\/\/127\.0\.0\.1:1 \(connection refused\)[^\n]*\n$/,
    );
  });
});
