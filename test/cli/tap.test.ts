import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { CLI, STDIO_SERVER, waitFor } from "./run-cli.js";

const SILENT = new URL("../fixtures/cli-silent-server.js", import.meta.url).pathname;
const NOISY = new URL("../fixtures/cli-noisy-server.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "mcpwire-tap-"));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Tap {
  write(text: string | Buffer): void;
  end(): void;
  kill(signal: NodeJS.Signals): void;
  stdout(): Buffer;
  stderr(): string;
  done: Promise<number | null>;
}

/** Starts `mcpwire tap` with a scripted client: the test writes its stdin raw. */
function startTap(out: string, command: string[], extra: string[] = []): Tap {
  const child = spawn(process.execPath, [CLI, "tap", "--out", out, ...extra, "--", ...command], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const stdout: Buffer[] = [];
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  return {
    write: (text) => child.stdin.write(text),
    end: () => child.stdin.end(),
    kill: (signal) => child.kill(signal),
    stdout: () => Buffer.concat(stdout),
    stderr: () => stderr,
    done: new Promise((resolve) => child.on("close", (code) => resolve(code))),
  };
}

function records(file: string): Record<string, unknown>[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
}

const line = (message: unknown) => `${JSON.stringify(message)}\n`;

describe("mcpwire tap", () => {
  it("passes bytes through unchanged both ways (cat as the server)", async () => {
    const out = join(dir, "cat.ndjson");
    const tap = startTap(out, ["cat"], ["--quiet"]);
    // Odd but legal framing: CRLF, spacing, escapes, non-ASCII; and a line split across writes.
    const input = Buffer.from(
      '{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n' +
        '{ "jsonrpc" : "2.0", "method":"notifications/x", "params":{"s":"h\\u00e9 \u00e9 \u2028"} }\n' +
        "not json at all\n" +
        '{"jsonrpc":"2.0","id":"a","method":"tools/list"}\n',
    );
    tap.write(input.subarray(0, 30));
    await new Promise((resolve) => setTimeout(resolve, 50));
    tap.write(input.subarray(30));
    tap.end();
    assert.equal(await tap.done, 0);
    assert.deepEqual(tap.stdout(), input);
    const recorded = records(out);
    const c2s = recorded.filter((r) => r.dir === "c2s");
    const s2c = recorded.filter((r) => r.dir === "s2c");
    assert.equal(c2s.length, 4);
    assert.deepEqual(
      c2s.map((r) => r.msg ?? r.raw),
      s2c.map((r) => r.msg ?? r.raw),
    );
    assert.deepEqual(c2s[2], { t: c2s[2]!.t, dir: "c2s", raw: "not json at all" });
    assert.deepEqual(recorded.at(-1)!.exit, { code: 0, signal: null });
  });

  it("records a real session with the example server, timestamps in order", async () => {
    const out = join(dir, "example.ndjson");
    const tap = startTap(out, [process.execPath, STDIO_SERVER]);
    tap.write(
      line({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "scripted", version: "1" },
        },
      }),
    );
    await waitFor("the initialize reply", () =>
      tap.stdout().includes('"id":1') ? true : undefined,
    );
    tap.write(line({ jsonrpc: "2.0", method: "notifications/initialized" }));
    tap.write(
      line({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "through the tap" } },
      }),
    );
    await waitFor("the echo reply", () => (tap.stdout().includes('"id":2') ? true : undefined));
    tap.end();
    assert.equal(await tap.done, 0, tap.stderr());
    const replies = tap
      .stdout()
      .toString()
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l));
    assert.equal(replies.at(-1).result.content[0].text, "through the tap");
    const recorded = records(out).filter((r) => r.dir !== undefined);
    assert.deepEqual(
      recorded.map((r) => [
        r.dir,
        (r.msg as { id?: number }).id ?? (r.msg as { method: string }).method,
      ]),
      [
        ["c2s", 1],
        ["s2c", 1],
        ["c2s", "notifications/initialized"],
        ["c2s", 2],
        ["s2c", 2],
      ],
    );
    const times = recorded.map((r) => r.t as number);
    assert.deepEqual(
      [...times].sort((a, b) => a - b),
      times,
    );
    assert.doesNotMatch(tap.stderr(), /mcpwire tap:/);
  });

  it("flags junk on stdout, unknown ids, cancelled requests, modern server requests and hangs", async () => {
    const out = join(dir, "noisy.ndjson");
    const tap = startTap(out, [process.execPath, NOISY], ["--hang-ms", "300"]);
    const call = (id: number, name: string, meta?: Record<string, unknown>) =>
      tap.write(
        line({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name, ...(meta ? { _meta: meta } : {}) },
        }),
      );
    const flagged = (pattern: RegExp) =>
      waitFor(`a warning ${pattern}`, () => (pattern.test(tap.stderr()) ? true : undefined));
    await flagged(/^mcpwire tap: non-JSON output on the server's stdout: "Server starting/m);
    call(1, "stray");
    await flagged(/^mcpwire tap: response to unknown id "no-such-id"$/m);
    call(2, "slow", { progressToken: "p2" });
    tap.write(
      line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } }),
    );
    await flagged(/^mcpwire tap: progress for cancelled request 2 \(tools\/call\)/m);
    await flagged(/^mcpwire tap: reply to cancelled request 2 \(tools\/call\)/m);
    call(3, "ask", { "io.modelcontextprotocol/protocolVersion": "2026-07-28" });
    await flagged(/^mcpwire tap: server sent request roots\/list on a modern connection/m);
    call(4, "hang");
    await flagged(
      /^mcpwire tap: server wrote to stderr and then nothing on stdout for 0\.3s with 1 request\(s\) pending \(tools\/call\); last stderr: "fatal: lost the database connection"$/m,
    );
    // The server's own stderr still reaches ours.
    assert.match(tap.stderr(), /^fatal: lost the database connection$/m);
    tap.end();
    assert.equal(await tap.done, 0);
    const stderrRecords = records(out).filter((r) => r.stderr !== undefined);
    assert.equal(stderrRecords.length, 1);
  });

  it("exits with the server's exit code", async () => {
    const out = join(dir, "exit.ndjson");
    const tap = startTap(out, [process.execPath, "-e", "process.exit(7)"]);
    assert.equal(await tap.done, 7);
    assert.deepEqual(records(out).at(-1)!.exit, { code: 7, signal: null });
  });

  it("passes SIGTERM on to the server and exits as it did", async () => {
    const out = join(dir, "term.ndjson");
    const tap = startTap(out, [process.execPath, SILENT]);
    const pid = await waitFor("the server to start", () => {
      const match = /^silent server pid (\d+)$/m.exec(tap.stderr());
      return match ? Number(match[1]) : undefined;
    });
    tap.kill("SIGTERM");
    assert.equal(await tap.done, 128 + constants.signals.SIGTERM);
    assert.deepEqual(records(out).at(-1)!.exit, { code: null, signal: "SIGTERM" });
    assert.throws(() => process.kill(pid, 0));
  });

  it("needs --out and a command", async () => {
    const tap = startTap(join(dir, "x.ndjson"), []);
    assert.equal(await tap.done, 2);
    assert.match(tap.stderr(), /^mcpwire: nothing after --/m);
  });
});
