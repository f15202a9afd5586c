/**
 * `mcpwire skills` against the everything example (examples/skills) and against a hostile
 * skills server: listing, showing, downloading verified files, and what a hostile server cannot
 * do to the terminal or the disk.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { EVERYTHING_SERVER } from "./run-cli.js";
import { runInProcess } from "./run-in-process.js";

const HOSTILE = new URL("../fixtures/skills-hostile-server.js", import.meta.url).pathname;
const EXAMPLE_SKILLS = new URL("../../../examples/skills/", import.meta.url).pathname;
const everything = ["--", process.execPath, EVERYTHING_SERVER, "--stdio"];
const hostile = ["--", process.execPath, HOSTILE];

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mcpwire-skills-cli-"));
  made.push(dir);
  return dir;
}

describe("mcpwire skills", () => {
  it("lists a server's skills: name, URI, files, size, description", async () => {
    const run = await runInProcess(["skills", ...everything]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /^refunds {2}skill:\/\/acme\/billing\/refunds\/SKILL\.md {2}\(2 files, \d+ bytes\)$/m,
    );
    assert.match(run.stdout, /^ {2}Process a customer refund request/m);
    assert.match(run.stdout, /^code-review {2}skill:\/\/code-review\/SKILL\.md/m);
    const json = await runInProcess(["skills", "list", "--json", ...everything]);
    const skills = JSON.parse(json.stdout) as { uri: string }[];
    assert.equal(skills.length, 2);
  });

  it("shows one skill by name or URI, with its files' digests", async () => {
    const byName = await runInProcess(["skills", "show", "code-review", ...everything]);
    assert.equal(byName.code, 0, byName.stderr);
    assert.match(
      byName.stdout,
      /^ {2}skill:\/\/code-review\/references\/checklist\.md {2}\d+ bytes {2}sha256:[0-9a-f]{64}$/m,
    );
    const unknown = await runInProcess(["skills", "show", "skill://nope/SKILL.md", ...everything]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No skill is served at skill:\/\/nope\/SKILL\.md/);
  });

  it("downloads every skill, byte for byte, under --to", async () => {
    const dir = tempDir();
    const run = await runInProcess(["skills", "download", "--all", "--to", dir, ...everything]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^skill:\/\/code-review\/SKILL\.md -> code-review\/ \(2 files\)$/m);
    for (const path of [
      "acme/billing/refunds/SKILL.md",
      "acme/billing/refunds/examples/email.md",
      "code-review/SKILL.md",
      "code-review/references/checklist.md",
    ]) {
      assert.deepEqual(
        readFileSync(join(dir, path)),
        readFileSync(join(EXAMPLE_SKILLS, path)),
        path,
      );
    }
    const again = await runInProcess([
      "skills",
      "download",
      "code-review",
      "--to",
      dir,
      ...everything,
    ]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists \(--force replaces files\)/);
    const forced = await runInProcess([
      "skills",
      "download",
      "code-review",
      "--to",
      dir,
      "--force",
      ...everything,
    ]);
    assert.equal(forced.code, 0, forced.stderr);
  });

  it("asks for a skill and a folder", async () => {
    const none = await runInProcess(["skills", "download", "--to", tempDir(), ...everything]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /download takes skill names or URIs, or --all/);
    const noDir = await runInProcess(["skills", "download", "--all", ...everything]);
    assert.equal(noDir.code, 2);
    assert.match(noDir.stderr, /download needs --to <dir>/);
  });

  it("refuses a server without the extension", async () => {
    const run = await runInProcess([
      "skills",
      "--",
      process.execPath,
      new URL("../../examples/stdio-server.js", import.meta.url).pathname,
    ]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /the server does not offer skills/);
  });
});

describe("mcpwire skills against a hostile server", () => {
  it("shows escape sequences as text", async () => {
    const run = await runInProcess(["skills", ...hostile]);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!run.stdout.includes("\u001b"), JSON.stringify(run.stdout));
    assert.match(run.stdout, /\\x1b\[2J\\x1b\]0;owned/);
  });

  it("writes nothing for a folder name with control characters", async () => {
    const dir = tempDir();
    const uri = "skill://bad%1B%5B31mfolder/trap/SKILL.md";
    const run = await runInProcess(["skills", "download", uri, "--to", dir, ...hostile]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /refused to write a file named "bad\\x1b\[31mfolder"/);
    assert.deepEqual(readdirSync(dir), []);
  });

  it("writes nothing for a file path that climbs out of the skill", async () => {
    const dir = join(tempDir(), "a", "b");
    const run = await runInProcess(["skills", "download", "climb", "--to", dir, ...hostile]);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /skill:\/\/climb\/\.\.\/\.\.\/escaped\.txt is not a file path under skill:\/\/climb/,
    );
    assert.ok(!existsSync(join(dir, "..", "..", "escaped.txt")));
    assert.ok(!existsSync(dir));
  });

  it("writes nothing when a file is not what the entry lists", async () => {
    const dir = tempDir();
    const run = await runInProcess(["skills", "download", "liar", "--to", dir, ...hostile]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /skill:\/\/liar\/notes\.md is 19 bytes, the entry says 15/);
    assert.deepEqual(readdirSync(dir), []);
  });
});
