/**
 * `mcpwire tap --out FILE <command…>` without `--` (issue 25.D10), so that it nests inside other
 * tools' command lines: the first word that is not one of tap's options starts the server's
 * command, and what follows is the server's, options tap also has included.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { StdioClientTransport } from "../../src/transports/stdio/client.js";
import { CLI, runCli, STDIO_SERVER } from "./run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "mcpwire-tap-words-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const recorded = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("tap without --", () => {
  it("stands in for a server our client starts, and records the session", async () => {
    const out = join(dir, "session.ndjson");
    const client = new McpClient({ clientInfo: { name: "tap-words", version: "1" } });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "tap", "--out", out, "--quiet", process.execPath, STDIO_SERVER],
      }),
    );
    try {
      const result = await client.callTool("echo", { text: "through tap" });
      assert.deepEqual(result.content, [{ type: "text", text: "through tap" }]);
    } finally {
      await client.close();
    }
    const calls = recorded(out).filter(
      (entry) => (entry.msg as { method?: string } | undefined)?.method === "tools/call",
    );
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.dir, "c2s");
  });

  it("leaves the server its own options and its own --, tap's names and -e included", async () => {
    const out = join(dir, "argv.ndjson");
    const script = "process.stdout.write(JSON.stringify(process.argv.slice(1)) + '\\n')";
    // Words tap would read as its own before the command: after it they are the server's.
    const theirs = ["--out", "inner", "--quiet", "-e", "x"];
    const serverArgs = ["-e", script, "--", ...theirs];
    const run = await runCli(["tap", "--out", out, "--quiet", process.execPath, ...serverArgs]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), theirs);
    const started = recorded(out)[0]!.tap as { command: string[] };
    assert.deepEqual(started.command, [process.execPath, ...serverArgs]);
  });

  it("--out after the command is the server's: a usage error says to put it first", async () => {
    const run = await runCli(["tap", process.execPath, STDIO_SERVER, "--out", join(dir, "late")]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /tap needs --out <file> before the server's command/);
  });
});
