/**
 * `mcpwire replay` starts its server with the same environment allowlist as every other verb
 * (src/transports/stdio/env.ts): a secret in the CLI's environment never reaches the server.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { CLI } from "./run-cli.js";

const SERVER = new URL("../fixtures/env-report-server.js", import.meta.url).pathname;
const SECRET_NAME = "MCPWIRE_TEST_API_KEY";

const dir = mkdtempSync(join(tmpdir(), "mcpwire-replay-env-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A tap-style recording in which the server saw no secret and PATH as given. */
function recording(path: string): string {
  const file = join(dir, "session.ndjson");
  const lines = [
    { t: 0, tap: { started: "2026-01-01T00:00:00.000Z", command: ["server"] } },
    {
      t: 1,
      dir: "c2s",
      msg: { jsonrpc: "2.0", id: 1, method: "getenv", params: { name: SECRET_NAME } },
    },
    { t: 2, dir: "s2c", msg: { jsonrpc: "2.0", id: 1, result: { value: null } } },
    {
      t: 3,
      dir: "c2s",
      msg: { jsonrpc: "2.0", id: 2, method: "getenv", params: { name: "PATH" } },
    },
    { t: 4, dir: "s2c", msg: { jsonrpc: "2.0", id: 2, result: { value: path } } },
  ];
  writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  return file;
}

function replay(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, "replay", file, "--", process.execPath, SERVER], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, [SECRET_NAME]: "sk-live-do-not-leak" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  return new Promise((resolve) => {
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("mcpwire replay environment", () => {
  it("does not pass the CLI's secrets to the server, but keeps the allowlisted PATH", async () => {
    const run = await replay(recording(process.env.PATH ?? ""));
    assert.doesNotMatch(run.stdout, /sk-live-do-not-leak/);
    assert.equal(run.stdout, "identical: all 2 replies match the recording\n", run.stderr);
    assert.equal(run.code, 0);
  });
});
