/**
 * Scanning a skills folder on disk (real files in a temporary folder) and answering from it:
 * entries with digests, nesting, the limits, hidden files, symbolic links in and out, and a file
 * swapped for a link after the scan.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import {
  getSkill,
  listSkills,
  readDirectory,
  readSkillFile,
} from "../../../src/extensions/skills/server-methods.js";
import { scanSkillDirectory } from "../../../src/extensions/skills/skill-directory.js";
import type { Skill } from "../../../src/extensions/skills/wire.js";

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function folder(files: Record<string, string | Buffer>): string {
  const root = mkdtempSync(join(tmpdir(), "mcpwire-skills-"));
  made.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const skillMd = (name: string, extra = "") =>
  `---\nname: ${name}\ndescription: The ${name} skill\n${extra}---\n\n# ${name}\n`;
const sha = (content: string | Buffer) =>
  `sha256:${createHash("sha256").update(content).digest("hex")}`;

function invalidParams(message: RegExp) {
  return (error: unknown) => {
    assert.equal((error as { code?: number }).code, -32602);
    assert.match((error as Error).message, message);
    return true;
  };
}

describe("a skills folder on disk", () => {
  it("lists each skill with its frontmatter and every file's digest and size", async () => {
    const email = "Dear {name},\n";
    const root = folder({
      "acme/billing/refunds/SKILL.md": skillMd("refunds", "license: MIT\n"),
      "acme/billing/refunds/examples/email.md": email,
      "git-workflow/SKILL.md": skillMd("git-workflow"),
      "README.md": "not in a skill",
      "acme/notes.txt": "not in a skill either",
    });
    const catalog = await scanSkillDirectory(root);
    assert.deepEqual(catalog.problems, []);
    const { skills } = listSkills(catalog, {}) as { skills: Skill[] };
    assert.deepEqual(
      skills.map((skill) => skill.uri),
      ["skill://acme/billing/refunds/SKILL.md", "skill://git-workflow/SKILL.md"],
    );
    assert.deepEqual(skills[0], {
      uri: "skill://acme/billing/refunds/SKILL.md",
      frontmatter: { name: "refunds", description: "The refunds skill", license: "MIT" },
      resources: [
        {
          uri: "skill://acme/billing/refunds/SKILL.md",
          digest: sha(skillMd("refunds", "license: MIT\n")),
          size: Buffer.byteLength(skillMd("refunds", "license: MIT\n")),
        },
        { uri: "skill://acme/billing/refunds/examples/email.md", digest: sha(email), size: 13 },
      ],
    });
    assert.equal(catalog.file("skill://README.md"), undefined);
    assert.equal(catalog.file("skill://acme/notes.txt"), undefined);
  });

  it("pages skills/list with the cursor it hands out, never splitting an entry", async () => {
    const files: Record<string, string> = {};
    for (const name of ["a", "b", "c", "d", "e"]) files[`${name}/SKILL.md`] = skillMd(name);
    const catalog = await scanSkillDirectory(folder(files));
    const seen: string[] = [];
    let cursor: unknown;
    do {
      const page = listSkills(catalog, cursor === undefined ? {} : { cursor }, 2) as {
        skills: Skill[];
        nextCursor?: string;
      };
      seen.push(...page.skills.map((skill) => skill.frontmatter.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    assert.deepEqual(seen, ["a", "b", "c", "d", "e"]);
    assert.throws(
      () => listSkills(catalog, { cursor: "bogus" }, 2),
      invalidParams(/Invalid cursor/),
    );
  });

  it("answers skills/get for a served skill and -32602 naming the URI otherwise", async () => {
    const catalog = await scanSkillDirectory(folder({ "a/SKILL.md": skillMd("a") }));
    const { skill } = getSkill(catalog, { uri: "skill://a/SKILL.md" }) as { skill: Skill };
    assert.equal(skill.frontmatter.name, "a");
    assert.throws(
      () => getSkill(catalog, { uri: "skill://b/SKILL.md" }),
      invalidParams(/No skill is served at skill:\/\/b\/SKILL.md/),
    );
    assert.throws(() => getSkill(catalog, {}), invalidParams(/needs a string "uri"/));
  });

  it("serves a nested skill on its own and as files of the enclosing one", async () => {
    const catalog = await scanSkillDirectory(
      folder({ "outer/SKILL.md": skillMd("outer"), "outer/inner/SKILL.md": skillMd("inner") }),
    );
    const outer = catalog.skill("skill://outer/SKILL.md") as Skill;
    const inner = catalog.skill("skill://outer/inner/SKILL.md") as Skill;
    assert.deepEqual(
      (outer.resources as { uri: string }[]).map((file) => file.uri),
      ["skill://outer/SKILL.md", "skill://outer/inner/SKILL.md"],
    );
    assert.deepEqual(
      (inner.resources as { uri: string }[]).map((file) => file.uri),
      ["skill://outer/inner/SKILL.md"],
    );
    const children = readDirectory(catalog, { uri: "skill://outer" }) as { resources: unknown[] };
    assert.deepEqual(children.resources, [
      {
        uri: "skill://outer/SKILL.md",
        name: "SKILL.md",
        mimeType: "text/markdown",
        size: Buffer.byteLength(skillMd("outer")),
      },
      { uri: "skill://outer/inner", name: "inner", mimeType: "inode/directory" },
    ]);
  });

  it("leaves out skills that break the rules, saying why", async () => {
    const root = folder({
      "SKILL.md": skillMd("root"),
      "wrong-folder/SKILL.md": skillMd("other-name"),
      "no-front/SKILL.md": "# no frontmatter\n",
      "Bad_Name/SKILL.md": skillMd("Bad_Name"),
      "binary/SKILL.md": Buffer.from([0xff, 0xfe, 0x00]),
      "fine/SKILL.md": skillMd("fine"),
    });
    const catalog = await scanSkillDirectory(root);
    assert.deepEqual(
      catalog.skills.map((skill) => skill.uri),
      ["skill://fine/SKILL.md"],
    );
    const problems = catalog.problems.join("\n");
    assert.match(problems, /SKILL.md at the root is not served/);
    assert.match(
      problems,
      /wrong-folder: not served: its name is "other-name" but its folder is "wrong-folder"/,
    );
    assert.match(problems, /no-front: not served: SKILL.md does not begin with/);
    assert.match(problems, /Bad_Name: not served: invalid skill name "Bad_Name"/);
    assert.match(problems, /binary: not served: SKILL.md is not UTF-8 text/);
  });

  it("leaves out a skill over 512 files or 16 MiB", async () => {
    const many: Record<string, string> = { "many/SKILL.md": skillMd("many") };
    for (let index = 0; index < 512; index++) many[`many/f/${index}.txt`] = "x";
    const big = { "big/SKILL.md": skillMd("big"), "big/blob.bin": Buffer.alloc(16 * 1024 * 1024) };
    const catalog = await scanSkillDirectory(
      folder({ ...many, ...big, "ok/SKILL.md": skillMd("ok") }),
    );
    assert.deepEqual(
      catalog.skills.map((skill) => skill.frontmatter.name),
      ["ok"],
    );
    assert.match(catalog.problems.join("\n"), /many: not served: it has 513 files \(at most 512\)/);
    assert.match(catalog.problems.join("\n"), /big: not served: its files add up to \d+ bytes/);
  });

  it("skips hidden files and folders unless asked", async () => {
    const root = folder({
      "a/SKILL.md": skillMd("a"),
      "a/.env": "SECRET=1",
      "a/.git/config": "[core]",
    });
    const plain = await scanSkillDirectory(root);
    assert.deepEqual(
      ((plain.skills[0] as Skill).resources as { uri: string }[]).map((file) => file.uri),
      ["skill://a/SKILL.md"],
    );
    const all = await scanSkillDirectory(root, { includeHidden: true });
    assert.equal(((all.skills[0] as Skill).resources as unknown[]).length, 3);
  });

  it("follows a link to a file inside the root, not out of it nor to a folder", async () => {
    const outside = folder({ "secret.txt": "outside" });
    const root = folder({ "a/SKILL.md": skillMd("a"), "shared/notes.md": "shared notes" });
    symlinkSync(join(root, "shared", "notes.md"), join(root, "a", "notes.md"));
    symlinkSync(join(outside, "secret.txt"), join(root, "a", "secret.txt"));
    symlinkSync(join(root, "shared"), join(root, "a", "shared"));
    symlinkSync(join(root, "missing"), join(root, "a", "broken"));
    const catalog = await scanSkillDirectory(root);
    const uris = ((catalog.skills[0] as Skill).resources as { uri: string }[]).map((f) => f.uri);
    assert.deepEqual(uris, ["skill://a/SKILL.md", "skill://a/notes.md"]);
    const read = await readSkillFile(catalog, "skill://a/notes.md");
    assert.deepEqual(read.contents, [
      { uri: "skill://a/notes.md", mimeType: "text/markdown", text: "shared notes" },
    ]);
    const problems = catalog.problems.join("\n");
    assert.match(problems, /a\/secret.txt: a symbolic link out of the skills directory/);
    assert.match(problems, /a\/shared: a symbolic link to a folder, not followed/);
    assert.match(problems, /a\/broken: a broken symbolic link/);
  });

  it("refuses to read a file swapped for a link out of the root after the scan", async () => {
    const outside = folder({ passwd: "root:x:0:0" });
    const root = folder({ "a/SKILL.md": skillMd("a"), "a/data.txt": "data" });
    const catalog = await scanSkillDirectory(root);
    unlinkSync(join(root, "a", "data.txt"));
    symlinkSync(join(outside, "passwd"), join(root, "a", "data.txt"));
    await assert.rejects(readSkillFile(catalog, "skill://a/data.txt"), (error: unknown) => {
      assert.equal((error as { code?: number }).code, -32603);
      assert.equal((error as Error).message, "Reading skill://a/data.txt failed");
      return true;
    });
    unlinkSync(join(root, "a", "data.txt"));
    await assert.rejects(
      readSkillFile(catalog, "skill://a/data.txt"),
      invalidParams(/no longer there/),
    );
  });

  it("serves text as text, other bytes as a blob, and only the URIs it listed", async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff]);
    const catalog = await scanSkillDirectory(
      folder({ "a/SKILL.md": skillMd("a"), "a/img/logo.png": png, "a/bom.txt": "\ufeffhi" }),
    );
    const image = await readSkillFile(catalog, "skill://a/img/logo.png");
    assert.deepEqual(image.contents, [
      { uri: "skill://a/img/logo.png", mimeType: "image/png", blob: png.toString("base64") },
    ]);
    const bom = await readSkillFile(catalog, "skill://a/bom.txt");
    assert.equal((bom.contents[0] as { text: string }).text, "\ufeffhi");
    for (const uri of [
      "skill://a/../a/SKILL.md",
      "skill://a/img",
      "skill://a/%2E%2E/x",
      "file:///etc/passwd",
    ]) {
      await assert.rejects(readSkillFile(catalog, uri), invalidParams(/No skill file is served/));
    }
  });

  it("reads directories: files, folders as inode/directory, -32602 for a file", async () => {
    const catalog = await scanSkillDirectory(
      folder({ "a/SKILL.md": skillMd("a"), "a/t/one.md": "1", "a/t/deep/two.md": "2" }),
    );
    const root = readDirectory(catalog, { uri: "skill://a" }) as {
      resources: { uri: string; mimeType: string }[];
    };
    assert.deepEqual(
      root.resources.map((child) => [child.uri, child.mimeType]),
      [
        ["skill://a/SKILL.md", "text/markdown"],
        ["skill://a/t", "inode/directory"],
      ],
    );
    const templates = readDirectory(catalog, { uri: "skill://a/t" }) as {
      resources: { uri: string }[];
    };
    assert.deepEqual(
      templates.resources.map((child) => child.uri),
      ["skill://a/t/deep", "skill://a/t/one.md"],
    );
    assert.throws(
      () => readDirectory(catalog, { uri: "skill://a/SKILL.md" }),
      invalidParams(/skill:\/\/a\/SKILL.md is not a directory resource/),
    );
    assert.throws(
      () => readDirectory(catalog, { uri: "skill://b" }),
      invalidParams(/not a served directory/),
    );
  });

  it("gives folder names a URI segment each, percent-encoded", async () => {
    const catalog = await scanSkillDirectory(
      folder({ "team one/a/SKILL.md": skillMd("a"), "team one/a/notes #1.md": "n" }),
    );
    const skill = catalog.skills[0] as Skill;
    assert.equal(skill.uri, "skill://team%20one/a/SKILL.md");
    assert.ok(catalog.file("skill://team%20one/a/notes%20%231.md"));
  });
});
