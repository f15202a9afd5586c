/** Writing a downloaded skill: only under the chosen folder, names checked, links not followed. */
import assert from "node:assert/strict";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { checkFileName, writeFilesInside } from "../../src/cli/verbs/skill-download.js";

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mcpwire-skill-download-"));
  made.push(dir);
  return dir;
}
const bytes = (text: string) => new TextEncoder().encode(text);

describe("writing a downloaded skill", () => {
  it("writes each file under <dir>/<skill path>/, not executable", async () => {
    const dir = tempDir();
    const written = await writeFilesInside(
      join(dir, "out"),
      ["acme", "refunds"],
      [
        { path: ["SKILL.md"], bytes: bytes("skill") },
        { path: ["scripts", "run.sh"], bytes: bytes("#!/bin/sh\n") },
      ],
      false,
    );
    assert.equal(written.length, 2);
    assert.equal(readFileSync(join(dir, "out", "acme", "refunds", "SKILL.md"), "utf8"), "skill");
    const script = statSync(join(dir, "out", "acme", "refunds", "scripts", "run.sh"));
    assert.equal(script.mode & 0o111, 0);
  });

  it("refuses names that leave the folder or confuse a terminal or a file system", async () => {
    for (const name of [
      "",
      ".",
      "..",
      "a/b",
      "a\\b",
      "nul\u0000",
      "esc\u001b[2J",
      "line\n",
      "c:x",
      "trail.",
      "rtl\u202e",
    ]) {
      assert.throws(
        () => checkFileName(name),
        /refused to write a file named/,
        JSON.stringify(name),
      );
    }
    for (const name of [".env", "SKILL.md", "résumé.md", "a b"]) checkFileName(name);
    const dir = tempDir();
    await assert.rejects(
      writeFilesInside(dir, ["a"], [{ path: ["..", "..", "evil"], bytes: bytes("x") }], false),
      /refused to write a file named "\.\."/,
    );
  });

  it("refuses to write through a link planted in the folder", async () => {
    const dir = tempDir();
    const elsewhere = tempDir();
    mkdirSync(join(dir, "acme"));
    symlinkSync(elsewhere, join(dir, "acme", "refunds"));
    await assert.rejects(
      writeFilesInside(
        dir,
        ["acme", "refunds"],
        [{ path: ["SKILL.md"], bytes: bytes("x") }],
        false,
      ),
      /refused to write through a link out of/,
    );
    assert.throws(() => readFileSync(join(elsewhere, "SKILL.md")));
  });

  it("keeps an existing file unless --force, and never replaces a link", async () => {
    const dir = tempDir();
    const file = [{ path: ["SKILL.md"], bytes: bytes("new") }];
    mkdirSync(join(dir, "a"));
    writeFileSync(join(dir, "a", "SKILL.md"), "old");
    await assert.rejects(
      writeFilesInside(dir, ["a"], file, false),
      /exists \(--force replaces files\)/,
    );
    assert.equal(readFileSync(join(dir, "a", "SKILL.md"), "utf8"), "old");
    await writeFilesInside(dir, ["a"], file, true);
    assert.equal(readFileSync(join(dir, "a", "SKILL.md"), "utf8"), "new");
    const target = join(tempDir(), "target");
    writeFileSync(target, "keep");
    mkdirSync(join(dir, "b"));
    symlinkSync(target, join(dir, "b", "SKILL.md"));
    await assert.rejects(
      writeFilesInside(dir, ["b"], file, true),
      /exists and is not a regular file/,
    );
    assert.equal(readFileSync(target, "utf8"), "keep");
  });
});
