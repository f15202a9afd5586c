import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { STDIO_SERVER, startCli, waitFor } from "./run-cli.js";
import { runInProcess } from "./run-in-process.js";

const SILENT_SERVER = new URL("../fixtures/cli-silent-server.js", import.meta.url).pathname;

const server = ["--", process.execPath, STDIO_SERVER];

describe("mcpwire verbs against a stdio server (-- <command>)", () => {
  it("discover shows era, server, tools, resources, templates and prompts", async () => {
    const run = await runInProcess(["discover", ...server]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^era +modern \(protocol 2026-07-28/m);
    assert.match(run.stdout, /^server +mcpwire-example-stdio 1\.0\.0/m);
    assert.match(run.stdout, /^instructions +Call echo or add/m);
    assert.match(run.stdout, /^tools \(4\)$/m);
    assert.match(run.stdout, /^ {2}echo +Returns its text unchanged\. +args: text\*$/m);
    assert.match(run.stdout, /^ {2}example:\/\/readme +About this server \(text\/markdown\)$/m);
    assert.match(run.stdout, /^ {2}example:\/\/colors\/\{color\}/m);
    assert.match(run.stdout, /^ {2}greet +Asks the model to greet someone\. +args: name\*$/m);
  });

  it("discover --json --era legacy parses and names the legacy era", async () => {
    const run = await runInProcess(["discover", "--json", "--era", "legacy", ...server]);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.era, "legacy");
    assert.equal(report.protocolVersion, "2025-11-25");
    assert.equal(report.serverInfo.name, "mcpwire-example-stdio");
    assert.deepEqual(
      report.tools.map((tool: { name: string }) => tool.name),
      ["echo", "add", "slow_count", "noisy"],
    );
    assert.equal(report.resourceTemplates[0].uriTemplate, "example://colors/{color}");
    assert.equal(report.prompts[0].name, "greet");
  });

  it("call prints the content, with progress as plain lines on stderr", async () => {
    const echo = await runInProcess(["call", "echo", '{"text":"hi there"}', ...server]);
    assert.equal(echo.code, 0, echo.stderr);
    assert.equal(echo.stdout, "hi there\n");
    const slow = await runInProcess(["call", "slow_count", '{"n":3}', ...server]);
    assert.equal(slow.code, 0, slow.stderr);
    assert.equal(slow.stdout, "counted to 3\n");
    assert.match(slow.stderr, /^progress 1\/3 counted 1$/m);
    assert.match(slow.stderr, /^progress 3\/3 counted 3$/m);
  });

  it("call --json prints the result as JSON, structuredContent included", async () => {
    const run = await runInProcess(["call", "add", '{"a":2,"b":3}', "--json", ...server]);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.deepEqual(result.structuredContent, { sum: 5 });
    assert.equal(result.content[0].text, "5");
  });

  it("a tool result with isError exits 1", async () => {
    const run = await runInProcess(["call", "add", '{"a":"two","b":3}', ...server]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^tool error:\nInvalid arguments for tool add/);
  });

  it("arguments that are not a JSON object are a usage error (exit 2)", async () => {
    const run = await runInProcess(["call", "echo", "{text:hi}", ...server]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^mcpwire: tool arguments is not valid JSON: [^\n]*\n$/);
  });

  it("an unknown tool is one line naming the tools there are, and exit 1", async () => {
    const run = await runInProcess(["call", "no_such_tool", ...server]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.match(
      run.stderr,
      /^mcpwire: no tool "no_such_tool" on the server; it has: echo, add, [^\n]*\n$/,
    );
  });

  it("a JSON-RPC error from the server is one line and exit 1", async () => {
    const run = await runInProcess(["raw", "no/such_method", ...server]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /^mcpwire: server error -32601: [^\n]*\n$/);
  });

  it("read, prompt and raw, in both eras", async () => {
    for (const era of ["modern", "legacy"]) {
      const read = await runInProcess(["read", "example://colors/red", "--era", era, ...server]);
      assert.equal(read.code, 0, read.stderr);
      assert.equal(read.stdout, "red is a fine color\n");
      const prompt = await runInProcess([
        "prompt",
        "greet",
        '{"name":"Ada"}',
        "--era",
        era,
        ...server,
      ]);
      assert.equal(prompt.code, 0, prompt.stderr);
      assert.equal(prompt.stdout, "# Greeting for Ada\nuser: Please greet Ada warmly.\n");
      const raw = await runInProcess([
        "raw",
        "completion/complete",
        '{"ref":{"type":"ref/resource","uri":"example://colors/{color}"},"argument":{"name":"color","value":"b"}}',
        "--era",
        era,
        ...server,
      ]);
      assert.equal(raw.code, 0, raw.stderr);
      assert.deepEqual(JSON.parse(raw.stdout).completion.values, ["blue", "black"]);
    }
  });

  it("--verbose shows the wire on stderr and keeps stdout clean", async () => {
    const run = await runInProcess([
      "call",
      "echo",
      '{"text":"x"}',
      "--verbose",
      "--era",
      "legacy",
      ...server,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "x\n");
    assert.match(run.stderr, /^-> \{"jsonrpc":"2\.0","id":1,"method":"initialize"/m);
    assert.match(
      run.stderr,
      /^<- \{"jsonrpc":"2\.0","id":1,"result":\{"protocolVersion":"2025-11-25"/m,
    );
    assert.match(run.stderr, /^-> \{"jsonrpc":"2\.0","id":2,"method":"tools\/call"/m);
  });

  it("a server that cannot be started is one line and exit 1", async () => {
    const run = await runInProcess(["discover", "--", "/no/such/mcp-server"]);
    assert.equal(run.code, 1);
    assert.equal(run.stderr.split("\n").length, 2, run.stderr);
    assert.match(run.stderr, /^mcpwire: .*\/no\/such\/mcp-server/);
  });

  it("Ctrl-C while a server never answers the handshake exits 130 and stops the server", async () => {
    const cli = startCli(["discover", "--verbose", "--", process.execPath, SILENT_SERVER]);
    const pid = await waitFor("the server to start and the handshake to go out", () => {
      const match = /silent server pid (\d+)/.exec(cli.stderr());
      return match && /^-> .*"method":"server\/discover"/m.test(cli.stderr())
        ? Number(match[1])
        : undefined;
    });
    cli.child.kill("SIGINT");
    const run = await cli.done;
    assert.equal(run.code, 130, run.stderr);
    await waitFor("the server to be gone", () => {
      try {
        process.kill(pid, 0);
        return undefined;
      } catch {
        return true;
      }
    });
  });
});
