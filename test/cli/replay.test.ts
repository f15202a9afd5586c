import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CLI, runCli, waitFor } from "./run-cli.js";

const NOISY = new URL("../fixtures/cli-noisy-server.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "mcpwire-replay-"));
const recording = join(dir, "session.ndjson");
after(() => rmSync(dir, { recursive: true, force: true }));

const line = (message: unknown) => `${JSON.stringify(message)}\n`;

/** Records a session through `mcpwire tap`, one request at a time, as a client would. */
async function record(): Promise<void> {
  const tap = spawn(
    process.execPath,
    [CLI, "tap", "--quiet", "--out", recording, "--", process.execPath, NOISY],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  let stdout = "";
  tap.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  const done = new Promise((resolve) => tap.on("close", resolve));
  const requests = [
    { method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {} } },
    { method: "tools/list" },
    { method: "tools/call", params: { name: "echo", arguments: { text: "first" } } },
    // Answering the server's roots/list is part of the client side that is replayed.
    { method: "tools/call", params: { name: "ask" } },
    { method: "tools/call", params: { name: "echo", arguments: { text: "second" } } },
  ];
  for (const [index, request] of requests.entries()) {
    const id = 10 + index;
    tap.stdin.write(line({ jsonrpc: "2.0", id, ...request }));
    if (index === 0) tap.stdin.write(line({ jsonrpc: "2.0", method: "notifications/initialized" }));
    if (request.params?.name === "ask") {
      await waitFor("the server's request", () =>
        stdout.includes('"server-1"') ? true : undefined,
      );
      tap.stdin.write(line({ jsonrpc: "2.0", id: "server-1", result: { roots: [] } }));
    }
    await waitFor(`reply ${id}`, () => (stdout.includes(`"id":${id},`) ? true : undefined));
  }
  tap.stdin.end();
  await done;
}

describe("mcpwire replay", () => {
  before(record);

  it("reports identical replies against the same server (exit 0)", async () => {
    const run = await runCli(["replay", recording, "--", process.execPath, NOISY]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "identical: all 5 replies match the recording\n");
  });

  it("ignores key order and timestamps: a reshuffled recording still matches", async () => {
    const reshuffled = join(dir, "reshuffled.ndjson");
    const reverseKeys = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(reverseKeys);
      if (value === null || typeof value !== "object") return value;
      return Object.fromEntries(
        Object.entries(value)
          .reverse()
          .map(([key, inner]) => [key, reverseKeys(inner)]),
      );
    };
    const text = readFileSync(recording, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => {
        const entry = JSON.parse(l);
        if (entry.dir === "s2c" && entry.msg) entry.msg = reverseKeys(entry.msg);
        if (typeof entry.t === "number") entry.t += 1000;
        return JSON.stringify(entry);
      })
      .join("\n");
    assert.match(text, /"result":\{"content":\[\{"text":"first","type":"text"\}\]\},"id":12,/);
    writeFileSync(reshuffled, text);
    const run = await runCli(["replay", reshuffled, "--", process.execPath, NOISY]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
  });

  it("shows a diff and exits 1 against a server that answers differently", async () => {
    const run = await runCli(["replay", recording, "--", process.execPath, NOISY, "--changed"]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /^reply to request 3 \(tools\/call, recorded id 12\) differs:$/m);
    assert.match(run.stdout, /^-\s+"text": "first",$/m);
    assert.match(run.stdout, /^\+\s+"text": "FIRST",$/m);
    assert.match(run.stdout, /^-\s+"text": "second",$/m);
    assert.match(run.stdout, /^different: 2 of 5 replies differ from the recording$/m);
  });

  it("reports a server that never answers as a difference", async () => {
    const run = await runCli([
      "replay",
      "--timeout",
      "300",
      recording,
      "--",
      process.execPath,
      "-e",
      "process.stdin.resume()",
    ]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^\+\(no reply\)$/m);
  });

  it("rejects a file that is not a recording", async () => {
    const bogus = join(dir, "bogus.ndjson");
    writeFileSync(bogus, "hello\n");
    const run = await runCli(["replay", bogus, "--", process.execPath, NOISY]);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^mcpwire: .*bogus\.ndjson:1 is not a tap recording line \(not JSON\)$/m,
    );
  });

  it("names the file and line of JSON that is no record, and of a line over 32 MiB", async () => {
    const good = JSON.stringify({ dir: "c2s", msg: { jsonrpc: "2.0", method: "x" } });
    for (const [name, bad, why] of [
      ["null.ndjson", "null", "not a record object"],
      ["number-msg.ndjson", '{"dir":"c2s","msg":5}', "not a record object"],
      ["long.ndjson", `"${"x".repeat(33 * 2 ** 20)}"`, "is over 32 MiB"],
    ] as const) {
      const file = join(dir, name);
      writeFileSync(file, `${good}\n${bad}\n`);
      const run = await runCli(["replay", file, "--", process.execPath, NOISY]);
      assert.equal(run.code, 1, run.stderr);
      assert.equal(run.stderr.split("\n")[0]!.startsWith(`mcpwire: ${file}:2 `), true, run.stderr);
      assert.match(run.stderr.split("\n")[0]!, new RegExp(why.replace(/[()]/g, "\\$&")));
      assert.ok(run.stderr.length < 500, "the line itself is never quoted");
    }
  });
});
