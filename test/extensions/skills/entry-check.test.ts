import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  checkSkillEntry,
  SkillEntryError,
  skillLimitProblem,
} from "../../../src/extensions/skills/entry-check.js";
import { skillCatalogFromFiles } from "../../../src/extensions/skills/memory-skills.js";
import type { Skill } from "../../../src/extensions/skills/wire.js";

const DIGEST = `sha256:${"a".repeat(64)}`;
const URI = "skill://acme/refunds/SKILL.md";

function entry(change: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    uri: URI,
    frontmatter: { name: "refunds", description: "Refunds" },
    resources: [
      { uri: URI, digest: DIGEST, size: 10 },
      { uri: "skill://acme/refunds/examples/email.md", digest: DIGEST, size: 5 },
    ],
    ...change,
  };
}

describe("a host's checks of a skill entry", () => {
  it("accepts a complete entry, and a dynamic one", () => {
    assert.equal(checkSkillEntry(entry()).uri, URI);
    assert.equal(checkSkillEntry(entry({ resources: "dynamic" })).resources, "dynamic");
  });

  it("accepts the entries a catalog publishes", async () => {
    const catalog = await skillCatalogFromFiles({
      "acme/refunds/SKILL.md": "---\nname: refunds\ndescription: Refunds\n---\n",
      "acme/refunds/examples/email.md": "Hello",
    });
    for (const skill of catalog.skills) assert.deepEqual(checkSkillEntry(skill), skill);
  });

  const broken: [string, unknown, RegExp][] = [
    ["a list", [], /not an object/],
    ["no uri", entry({ uri: undefined }), /has no uri/],
    [
      "a uri not ending in SKILL.md",
      entry({ uri: "skill://acme/refunds" }),
      /does not end in \/SKILL.md/,
    ],
    ["no frontmatter", entry({ frontmatter: "name: refunds" }), /no frontmatter object/],
    ["no description", entry({ frontmatter: { name: "refunds" } }), /description is missing/],
    [
      "a name that is not the last segment",
      entry({ frontmatter: { name: "chargebacks", description: "x" } }),
      /last path segment "refunds" is not frontmatter.name "chargebacks"/,
    ],
    ["no resources", entry({ resources: undefined }), /neither a list nor "dynamic"/],
    ["resources as an object", entry({ resources: {} }), /neither a list nor "dynamic"/],
    [
      "a file outside the skill",
      entry({
        resources: [
          { uri: URI, digest: DIGEST, size: 1 },
          { uri: "skill://acme/other/x", digest: DIGEST, size: 1 },
        ],
      }),
      /skill:\/\/acme\/other\/x is outside the skill/,
    ],
    [
      "a sibling folder sharing the prefix",
      entry({
        resources: [
          { uri: URI, digest: DIGEST, size: 1 },
          { uri: "skill://acme/refunds2/x", digest: DIGEST, size: 1 },
        ],
      }),
      /outside the skill/,
    ],
    [
      "a file listed twice",
      entry({
        resources: [
          { uri: URI, digest: DIGEST, size: 1 },
          { uri: URI, digest: DIGEST, size: 1 },
        ],
      }),
      /listed twice/,
    ],
    [
      "an upper-case digest",
      entry({ resources: [{ uri: URI, digest: DIGEST.toUpperCase(), size: 1 }] }),
      /no sha256:<64 hex> digest/,
    ],
    [
      "a negative size",
      entry({ resources: [{ uri: URI, digest: DIGEST, size: -1 }] }),
      /no byte size/,
    ],
    [
      "a fractional size",
      entry({ resources: [{ uri: URI, digest: DIGEST, size: 1.5 }] }),
      /no byte size/,
    ],
    [
      "no SKILL.md among the files",
      entry({ resources: [{ uri: "skill://acme/refunds/a.md", digest: DIGEST, size: 1 }] }),
      /leave out its SKILL.md/,
    ],
  ];
  for (const [what, value, message] of broken) {
    it(`refuses ${what}`, () => {
      assert.throws(
        () => checkSkillEntry(value),
        (error: unknown) => {
          assert.ok(error instanceof SkillEntryError);
          assert.match(error.message, message);
          return true;
        },
      );
    });
  }

  it("tells a skill over 512 files or 16 MiB apart from one within them", () => {
    const files = (count: number, size: number) =>
      Array.from({ length: count }, (_, index) => ({
        uri: `${URI}${index}`,
        digest: DIGEST,
        size,
      }));
    const skill = (resources: Skill["resources"]) => ({
      ...(entry() as unknown as Skill),
      resources,
    });
    assert.equal(skillLimitProblem(skill(files(512, 32 * 1024))), undefined);
    assert.match(skillLimitProblem(skill(files(513, 1))) ?? "", /513 files \(the limit is 512\)/);
    assert.match(skillLimitProblem(skill(files(2, 8 * 1024 * 1024 + 1))) ?? "", /16777218 bytes/);
    assert.equal(skillLimitProblem(skill("dynamic")), undefined);
  });
});
