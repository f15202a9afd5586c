/**
 * What a host checks in a skill entry before it relies on it (SEP-2640, Skill Entries): a uri
 * ending in `/SKILL.md` whose last skill-path segment is `frontmatter.name`, a frontmatter with
 * name and description, and `resources` either "dynamic" or a complete list of distinct files
 * inside the skill, each with a well-formed digest and size, SKILL.md among them. An entry
 * without valid `resources` must not be loaded.
 */
import { isSkillDigest } from "./digest.js";
import { isSkillName } from "./skill-name.js";
import { isWithinSkill, skillNameOfUri } from "./uris.js";
import { SKILL_LIMITS, type Skill } from "./wire.js";

/** An entry a host must not use; the message says which rule it breaks. */
export class SkillEntryError extends Error {
  override name = "SkillEntryError";
}

/** `value` as a Skill, or SkillEntryError. */
export function checkSkillEntry(value: unknown): Skill {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SkillEntryError("a skill entry is not an object");
  }
  const entry = value as Record<string, unknown>;
  const uri = entry.uri;
  if (typeof uri !== "string" || uri === "") throw new SkillEntryError("a skill entry has no uri");
  const fail = (why: string) => new SkillEntryError(`the entry for ${uri}: ${why}`);
  const name = skillNameOfUri(uri);
  if (name === undefined) throw fail("its uri does not end in /SKILL.md");
  const frontmatter = entry.frontmatter;
  if (typeof frontmatter !== "object" || frontmatter === null || Array.isArray(frontmatter)) {
    throw fail("it has no frontmatter object");
  }
  const fields = frontmatter as Record<string, unknown>;
  if (typeof fields.name !== "string" || fields.name === "")
    throw fail("frontmatter.name is missing");
  if (typeof fields.description !== "string" || fields.description === "") {
    throw fail("frontmatter.description is missing");
  }
  if (fields.name !== name) {
    throw fail(`its last path segment "${name}" is not frontmatter.name "${fields.name}"`);
  }
  if (!isSkillName(name)) throw fail(`"${name}" breaks the skill naming rules`);
  const resources = entry.resources;
  if (resources !== "dynamic") checkResources(uri, resources, fail);
  return entry as unknown as Skill;
}

function checkResources(
  uri: string,
  resources: unknown,
  fail: (why: string) => SkillEntryError,
): void {
  if (!Array.isArray(resources)) throw fail('its resources are neither a list nor "dynamic"');
  const seen = new Set<string>();
  for (const item of resources as unknown[]) {
    const file = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
    if (typeof file.uri !== "string") throw fail("a resources item has no uri");
    if (!isWithinSkill(uri, file.uri)) throw fail(`${file.uri} is outside the skill`);
    if (seen.has(file.uri)) throw fail(`${file.uri} is listed twice`);
    seen.add(file.uri);
    if (!isSkillDigest(file.digest)) throw fail(`${file.uri} has no sha256:<64 hex> digest`);
    if (typeof file.size !== "number" || !Number.isSafeInteger(file.size) || file.size < 0) {
      throw fail(`${file.uri} has no byte size`);
    }
  }
  if (!seen.has(uri)) throw fail("its resources leave out its SKILL.md");
}

/** Why a listed skill is over the limits every host accepts, or undefined when it is not. */
export function skillLimitProblem(skill: Skill): string | undefined {
  if (skill.resources === "dynamic") return undefined;
  if (skill.resources.length > SKILL_LIMITS.maxFiles) {
    return `it has ${skill.resources.length} files (the limit is ${SKILL_LIMITS.maxFiles})`;
  }
  const total = skill.resources.reduce((sum, file) => sum + file.size, 0);
  if (total > SKILL_LIMITS.maxTotalBytes) {
    return `its files add up to ${total} bytes (the limit is ${SKILL_LIMITS.maxTotalBytes})`;
  }
  return undefined;
}
