import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  frontmatterDifferences,
  parseFrontmatter,
  SkillFormatError,
  splitFrontmatter,
} from "../../../src/extensions/skills/frontmatter.js";
import { isSkillName, skillNameProblem } from "../../../src/extensions/skills/skill-name.js";

const skill = (yaml: string, body = "\n# Body\n") => `---\n${yaml}\n---\n${body}`;

describe("SKILL.md frontmatter", () => {
  it("is every field the author wrote, as JSON", () => {
    const text = skill(
      [
        "name: pdf-processing",
        "description: >-",
        "  Extract, fill and",
        "  assemble PDFs",
        "license: Apache-2.0",
        "metadata:",
        '  version: "2.1"',
        "  io.example/tier: 3",
        "allowed-tools: Bash(git:*) Read",
        "tags: [a, b]",
      ].join("\n"),
    );
    assert.deepEqual(parseFrontmatter(text), {
      name: "pdf-processing",
      description: "Extract, fill and assemble PDFs",
      license: "Apache-2.0",
      metadata: { version: "2.1", "io.example/tier": 3 },
      "allowed-tools": "Bash(git:*) Read",
      tags: ["a", "b"],
    });
  });

  it("splits off the markdown body, with a byte-order mark and CRLF lines too", () => {
    const text = "\ufeff---\r\nname: a\r\ndescription: b\r\n---\r\n# Title\r\n";
    assert.deepEqual(splitFrontmatter(text), {
      yaml: "name: a\r\ndescription: b",
      body: "# Title\r\n",
    });
    assert.equal(parseFrontmatter(text).name, "a");
  });

  it("keeps YAML 1.2 core values as written: no dates, no sexagesimal numbers", () => {
    const parsed = parseFrontmatter(
      skill("name: a\ndescription: b\nreleased: 2024-01-02\nt: 1:30"),
    );
    assert.equal(parsed.released, "2024-01-02");
    assert.equal(parsed.t, "1:30");
  });

  const refused: [string, string, RegExp][] = [
    ["no block", "# Just markdown\n", /does not begin with a --- delimited/],
    ["an unclosed block", "---\nname: a\ndescription: b\n", /does not begin with a --- delimited/],
    ["a list", skill("- a\n- b"), /not a YAML mapping/],
    ["broken YAML", skill("name: [a\ndescription: b"), /not valid YAML/],
    ["a duplicate key", skill("name: a\nname: b\ndescription: c"), /not valid YAML/],
    ["no name", skill("description: b"), /no `name` string/],
    ["a numeric name", skill("name: 12\ndescription: b"), /no `name` string/],
    ["an upper-case name", skill("name: PDF\ndescription: b"), /invalid skill name "PDF"/],
    ["no description", skill("name: a"), /non-empty `description`/],
    ["a blank description", skill("name: a\ndescription: '  '"), /non-empty `description`/],
    ["a long description", skill(`name: a\ndescription: ${"x".repeat(1025)}`), /1025 characters/],
    ["an infinity", skill("name: a\ndescription: b\nlimit: .inf"), /frontmatter.limit is Infinity/],
    [
      "NaN deep down",
      skill("name: a\ndescription: b\nm: {k: [.nan]}"),
      /frontmatter.m.k\[0\] is NaN/,
    ],
  ];
  for (const [what, text, message] of refused) {
    it(`refuses ${what}`, () => {
      assert.throws(
        () => parseFrontmatter(text),
        (error: unknown) => {
          assert.ok(error instanceof SkillFormatError);
          assert.match(error.message, message);
          return true;
        },
      );
    });
  }

  it("refuses an alias bomb instead of expanding it", () => {
    const lines = ["name: a", "description: b", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"];
    for (let level = 1; level < 12; level++) {
      const previous = `*a${level - 1}`;
      lines.push(`a${level}: &a${level} [${Array(10).fill(previous).join(", ")}]`);
    }
    assert.throws(
      () => parseFrontmatter(skill(lines.join("\n"))),
      (error: unknown) => error instanceof SkillFormatError && /alias count/.test(error.message),
    );
  });

  it("refuses frontmatter over 64 KiB before parsing it", () => {
    const text = skill(`name: a\ndescription: b\npad: ${"x".repeat(70_000)}`);
    assert.throws(() => parseFrontmatter(text), /over 65536 bytes/);
  });

  it("keeps a __proto__ key as data", () => {
    const parsed = parseFrontmatter(skill("name: a\ndescription: b\n__proto__: {polluted: true}"));
    assert.equal(Object.getPrototypeOf(parsed), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(Object.keys(parsed), ["name", "description", "__proto__"]);
  });

  it("compares field by field, whatever the key order, a missing field and null apart", () => {
    const read = { name: "a", description: "b", metadata: { x: "1", y: "2" } };
    assert.deepEqual(
      frontmatterDifferences(read, { description: "b", metadata: { y: "2", x: "1" }, name: "a" }),
      [],
    );
    assert.deepEqual(frontmatterDifferences(read, { ...read, metadata: { x: "1" } }), ["metadata"]);
    assert.deepEqual(frontmatterDifferences({ ...read, license: null }, read), ["license"]);
    assert.deepEqual(frontmatterDifferences(read, { ...read, description: "c" }), ["description"]);
  });
});

describe("skill names", () => {
  it("follow the Agent Skills rules", () => {
    for (const name of ["a", "pdf-processing", "x1", "a".repeat(64)])
      assert.ok(isSkillName(name), name);
    const bad: [string, RegExp][] = [
      ["", /empty/],
      ["a".repeat(65), /65 characters/],
      ["a--b", /two hyphens/],
      ["-a", /starts or ends/],
      ["a-", /starts or ends/],
      ["Refunds", /lowercase/],
      ["ré", /lowercase/],
      ["a_b", /lowercase/],
    ];
    for (const [name, why] of bad) {
      assert.ok(!isSkillName(name), name);
      assert.match(skillNameProblem(name) ?? "", why, name);
    }
  });
});
