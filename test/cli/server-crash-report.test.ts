/**
 * A stdio server that dies says why on stderr; the CLI must show those last lines (bounded,
 * made printable) with the error, whether it dies at start or in the middle of a call after
 * discovery, in a one-shot verb or in the shell. The library's ServerExitedError carries the
 * tail too: raw in `stderr`, printable in its message.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, it } from "node:test";
import type { CloseInfo } from "../../src/protocol/transport.js";
import { ServerExitedError, StdioClientTransport } from "../../src/transports/stdio/client.js";
import { CLI, type CliRun, runCli } from "./run-cli.js";

const CRASHING = new URL("../fixtures/crashing-server.js", import.meta.url).pathname;
const HOSTILE = new URL("../fixtures/hostile-server.js", import.meta.url).pathname;

describe("the CLI reports a stdio server's crash with its last stderr lines", () => {
  it("a server that exits at start: the lines that explain it follow the exit", async () => {
    for (const verb of [["call", "anything", "{}"], ["discover"]]) {
      const run = await runCli([...verb, "--", process.execPath, CRASHING, "--at-start"]);
      assert.equal(run.code, 1, run.stderr);
      assert.equal(run.stdout, "");
      assert.match(
        run.stderr,
        /^mcpwire: MCP server ".*" \(pid \d+\) exited with code 3; its stderr ended with:\n {2}loading config from \/etc\/crashing\.json\n {2}fatal: config file \/etc\/crashing\.json is missing\n$/,
      );
    }
  });

  for (const era of ["modern", "legacy"]) {
    it(`a server that crashes in the middle of a call, after discovery (${era})`, async () => {
      const run = await runCli([
        "call",
        "crash",
        "{}",
        "--era",
        era,
        "--",
        process.execPath,
        CRASHING,
      ]);
      assert.equal(run.code, 1, run.stderr);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /exited with code 4; its stderr ended with:\n {2}handling crash\n/);
      assert.match(run.stderr, /^ {2}fatal: out of widgets \(needed 3, had 0\)$/m);
    });
  }

  it("only the last 20 lines are shown", async () => {
    const run = await runCli(["call", "x", "{}", "--", process.execPath, CRASHING, "--many"]);
    assert.equal(run.code, 1, run.stderr);
    const shown = run.stderr.split("\n").filter((line) => line.startsWith("  "));
    assert.equal(shown.length, 20, run.stderr);
    assert.equal(shown[0], "  noise line 33");
    assert.equal(shown[19], "  fatal: config file /etc/crashing.json is missing");
  });

  it("the shell reports the crash of a call with the server's lines", async () => {
    const run = await runShell(["call crash {}", ""], ["--", process.execPath, CRASHING]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /^error: MCP server .* exited with code 4; its stderr ended with:\n {2}handling crash\n {2}fatal: out of widgets/m,
    );
  });
});

describe("ServerExitedError", () => {
  it("carries the server's stderr: raw in .stderr, printable in the message", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [HOSTILE] });
    const closed = new Promise<CloseInfo>((resolve) => {
      transport.start({ message: () => {}, closed: resolve });
    });
    await transport.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "die" },
    });
    const { error } = await closed;
    assert.ok(error instanceof ServerExitedError, String(error));
    assert.equal(error.code, 3);
    assert.ok(error.stderr.includes("dying<\x1b]52;"), error.stderr);
    assert.match(error.message, /; stderr:\ndying<\\x1b\]52;c;aGFja2Vk\\x07\|/);
    assert.match(error.message, /fatal: the hostile server gave up$/);
    assert.ok(!error.message.includes("\x1b"), "no raw ESC in the message");
    await transport.close();
  });
});

/** Runs the shell with `lines` on its stdin. */
function runShell(lines: string[], target: string[]): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, "shell", ...target], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  child.stdin.end(lines.join("\n"));
  return new Promise((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
