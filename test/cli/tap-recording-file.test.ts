/**
 * `mcpwire tap` recordings hold every message of a session (tokens, user data): they are
 * written owner-only (0600), an existing file included, and a symlink planted at the --out path
 * is refused rather than followed.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { CLI, runCli } from "./run-cli.js";

const SERVER = new URL("../fixtures/env-report-server.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "mcpwire-tap-file-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** One request through tap; resolves with tap's exit code once the server has gone. */
function tapOnce(out: string): Promise<number | null> {
  const tap = spawn(
    process.execPath,
    [CLI, "tap", "--quiet", "--out", out, "--", process.execPath, SERVER],
    {
      stdio: ["pipe", "ignore", "pipe"],
    },
  );
  tap.stdin.end(
    `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getenv", params: { name: "HOME" } })}\n`,
  );
  return new Promise((resolve) => tap.on("close", (code) => resolve(code)));
}

describe("tap recording file", () => {
  it("is created with mode 0600", async () => {
    const out = join(dir, "new.ndjson");
    assert.equal(await tapOnce(out), 0);
    assert.equal(statSync(out).mode & 0o777, 0o600);
    assert.match(readFileSync(out, "utf8"), /"method":"getenv"/);
  });

  it("narrows an existing file to 0600 when it overwrites it", async () => {
    const out = join(dir, "existing.ndjson");
    writeFileSync(out, "old\n", { mode: 0o644 });
    assert.equal(await tapOnce(out), 0);
    assert.equal(statSync(out).mode & 0o777, 0o600);
    assert.doesNotMatch(readFileSync(out, "utf8"), /^old$/m);
  });

  it("refuses a symlink at the path and leaves its target alone", async () => {
    const target = join(dir, "victim.txt");
    writeFileSync(target, "precious\n", { mode: 0o644 });
    const link = join(dir, "link.ndjson");
    symlinkSync(target, link);
    const run = await runCli(["tap", "--out", link, "--", process.execPath, SERVER]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /cannot write .*symbolic link/);
    assert.equal(readFileSync(target, "utf8"), "precious\n");
    assert.equal(statSync(target).mode & 0o777, 0o644);
  });
});
