import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { CLI, listeningAddress, runCli, STDIO_SERVER, startProcess, stop } from "./run-cli.js";

const child = ["--", process.execPath, STDIO_SERVER];

describe("gateway --listen tcp://… and unix:… (the ndjson socket framing)", () => {
  it("serves the child on a TCP port to the tcp:// client target, in both eras", async () => {
    const gateway = startProcess(process.execPath, [
      CLI,
      "gateway",
      "--listen",
      "tcp://127.0.0.1:0",
      ...child,
    ]);
    try {
      const address = await listeningAddress(gateway, "stderr");
      assert.match(address, /^tcp:\/\/127\.0\.0\.1:\d+$/);
      const modern = await runCli(["call", address, "echo", "text=over tcp"]);
      assert.equal(modern.code, 0, modern.stderr);
      assert.equal(modern.stdout, "over tcp\n");
      const legacy = await runCli(["call", address, "add", "a=1", "b=2", "--era", "legacy"]);
      assert.equal(legacy.code, 0, legacy.stderr);
      assert.equal(legacy.stdout, "3\n");
    } finally {
      await stop(gateway);
    }
  });

  it("serves the child on a Unix socket", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "mcpwire-gw-")), "mcp.sock");
    const gateway = startProcess(process.execPath, [
      CLI,
      "gateway",
      "--listen",
      `unix:${path}`,
      ...child,
    ]);
    try {
      const address = await listeningAddress(gateway, "stderr");
      assert.equal(address, `unix:${path}`);
      const run = await runCli(["read", address, "example://readme"]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /# mcpwire example/);
    } finally {
      await stop(gateway);
    }
  });

  it("a busy socket port is one line naming --listen; HTTP-only options are refused", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const run = await runCli(["gateway", "--listen", `tcp://127.0.0.1:${port}`, ...child]);
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr,
        `mcpwire: --listen tcp://127.0.0.1:${port}: the port is already in use; pick another port (or 0 for any free one)\n`,
      );
    } finally {
      holder.close();
    }
    const token = await runCli([
      "gateway",
      "--listen",
      "tcp://127.0.0.1:0",
      "--token",
      "x",
      ...child,
    ]);
    assert.equal(token.code, 2);
    assert.match(token.stderr, /--token, --token-file, --cors and --legacy-sse are for HTTP/);
  });
});
