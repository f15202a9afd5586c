/**
 * `mcpwire read --out FILE` (issue 25.D12): a binary resource's bytes in a file (the everything
 * example's PNG over stdio), a text resource as UTF-8, the byte count on stderr; a symbolic link
 * at FILE is refused and left alone.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { EVERYTHING_SERVER, runCli } from "./run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "mcpwire-read-out-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const server = ["--", process.execPath, EVERYTHING_SERVER, "--stdio"];
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("read --out", () => {
  it("writes a binary resource's bytes, decoded, and says how many", async () => {
    const file = join(dir, "image.png");
    const run = await runCli(["read", "test://static-binary", "--out", file, ...server]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "");
    const bytes = readFileSync(file);
    assert.deepEqual(bytes.subarray(0, 8), PNG_SIGNATURE);
    assert.equal(run.stderr, `wrote ${bytes.length} bytes (image/png) to ${file}\n`);
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  it("writes a text resource as UTF-8; --json describes what was written", async () => {
    const file = join(dir, "text.txt");
    const run = await runCli(["read", "test://static-text", "--out", file, "--json", ...server]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(file, "utf8"), "This is the content of the static text resource.");
    assert.deepEqual(JSON.parse(run.stdout), {
      file,
      uri: "test://static-text",
      mimeType: "text/plain",
      bytes: 48,
    });
  });

  it("refuses a symbolic link at the path and leaves its target alone", async () => {
    const target = join(dir, "precious");
    writeFileSync(target, "keep me");
    const link = join(dir, "link.png");
    symlinkSync(target, link);
    const run = await runCli(["read", "test://static-binary", "--out", link, ...server]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /cannot write .*link\.png: it is a symbolic link/);
    assert.equal(readFileSync(target, "utf8"), "keep me");
  });
});
