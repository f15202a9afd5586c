/**
 * Nothing but MCP on a stdio server's stdout: a handler writing to process.stdout directly (or
 * piping into it) ends up on stderr, while the protocol keeps flowing on stdout; with
 * `guardStdout: false` stray writes reach stdout as before.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, it } from "node:test";

const SERVER = new URL("../../fixtures/stray-stdout-server.js", import.meta.url).pathname;

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** Calls `noisy` then `tools/list`, closes stdin, and returns what came out of each pipe. */
async function callNoisy(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [SERVER, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const closed = new Promise((resolve) => child.once("close", resolve));
  const request = (id: number, method: string, params: Record<string, unknown>) =>
    `${JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: META } })}\n`;
  child.stdin.write(request(1, "tools/call", { name: "noisy", arguments: {} }));
  // The second request goes only after the first reply: its reply follows the garbage.
  await new Promise<void>((resolve) => {
    const check = () => {
      if (!stdout.includes('"id":1')) return;
      child.stdout.off("data", check);
      resolve();
    };
    child.stdout.on("data", check);
  });
  child.stdin.end(request(2, "tools/list", {}));
  await closed;
  return { stdout, stderr };
}

describe("stdio server stdout guard", () => {
  it("sends stray process.stdout writes to stderr and keeps stdout pure JSON-RPC", async () => {
    const { stdout, stderr } = await callNoisy([]);
    const lines = stdout.split("\n").filter((line) => line !== "");
    assert.equal(lines.length, 2, stdout);
    const replies = lines.map((line) => JSON.parse(line) as { id: number; result?: unknown });
    assert.deepEqual(
      replies.map((reply) => reply.id),
      [1, 2],
    );
    assert.ok(replies.every((reply) => reply.result !== undefined));
    assert.match(stderr, /^garbage$/m);
    assert.match(stderr, /^piped garbage$/m);
  });

  it("with guardStdout: false, stray writes reach stdout as before", async () => {
    const { stdout, stderr } = await callNoisy(["--no-guard"]);
    assert.match(stdout, /^garbage$/m);
    assert.match(stdout, /^piped garbage$/m);
    assert.doesNotMatch(stderr, /garbage/);
  });
});
