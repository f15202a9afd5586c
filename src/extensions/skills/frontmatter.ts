/**
 * A SKILL.md's frontmatter: the YAML block between the leading `---` lines, as a JSON object.
 * SEP-2640 publishes it verbatim in the skill's entry and has hosts compare it field by field
 * with the file they read, so both sides parse it here, with one YAML parser (`yaml`, YAML 1.2
 * core schema: no custom tags, no dates, no merge keys), and refuse what JSON cannot carry.
 */
import { parse, YAMLError } from "yaml";
import { stableStringify } from "../../protocol/canonical-json.js";
import { MAX_DESCRIPTION_LENGTH, skillNameProblem } from "./skill-name.js";
import type { SkillFrontmatter } from "./wire.js";

/** Frontmatter beyond this is refused unparsed: it is a header, and YAML parsing is not free. */
const MAX_FRONTMATTER_BYTES = 64 * 1024;
/** Nesting deeper than this in the frontmatter is refused (metadata is one level in practice). */
const MAX_DEPTH = 32;
/** A leading `---` line, the YAML, and a closing `---` line (the Agent Skills file layout). */
const BLOCK = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

/** A SKILL.md that does not hold valid frontmatter; the message says what is wrong. */
export class SkillFormatError extends Error {
  override name = "SkillFormatError";
}

/** The frontmatter text and the markdown after it. */
export function splitFrontmatter(text: string): { yaml: string; body: string } {
  const content = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const match = BLOCK.exec(content);
  if (!match) {
    throw new SkillFormatError(
      "SKILL.md does not begin with a --- delimited YAML frontmatter block",
    );
  }
  return { yaml: match[1] ?? "", body: content.slice(match[0].length) };
}

/**
 * Parses SKILL.md text's frontmatter as the JSON object an entry carries. Throws
 * SkillFormatError when there is none, it is not YAML, not an object, holds values JSON cannot
 * (infinities, NaN), or lacks a valid `name` and a non-empty `description`.
 */
export function parseFrontmatter(text: string): SkillFrontmatter {
  const { yaml } = splitFrontmatter(text);
  if (new TextEncoder().encode(yaml).byteLength > MAX_FRONTMATTER_BYTES) {
    throw new SkillFormatError(`the frontmatter is over ${MAX_FRONTMATTER_BYTES} bytes`);
  }
  let value: unknown;
  try {
    value = parse(yaml, { schema: "core", uniqueKeys: true, maxAliasCount: 100 });
  } catch (error) {
    // Only what the YAML says is the author's fault; anything else (a runtime refusing the
    // parser's environment lookups, say) is the server's and must not pass for bad frontmatter.
    if (!(error instanceof YAMLError) && !isAliasBomb(error)) throw error;
    throw new SkillFormatError(`the frontmatter is not valid YAML: ${firstLine(error as Error)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SkillFormatError("the frontmatter is not a YAML mapping");
  }
  checkJson(value, "frontmatter", 0);
  const frontmatter = value as Record<string, unknown>;
  if (typeof frontmatter.name !== "string") {
    throw new SkillFormatError("the frontmatter has no `name` string");
  }
  const nameProblem = skillNameProblem(frontmatter.name);
  if (nameProblem)
    throw new SkillFormatError(`invalid skill name "${frontmatter.name}": ${nameProblem}`);
  const description = frontmatter.description;
  if (typeof description !== "string" || description.trim() === "") {
    throw new SkillFormatError("the frontmatter has no non-empty `description` string");
  }
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    throw new SkillFormatError(
      `the description is ${description.length} characters long (at most ${MAX_DESCRIPTION_LENGTH})`,
    );
  }
  return frontmatter as SkillFrontmatter;
}

/** yaml refuses too many alias expansions with a ReferenceError of its own. */
function isAliasBomb(error: unknown): boolean {
  return error instanceof ReferenceError && /alias count/i.test(error.message);
}

function firstLine(error: Error): string {
  return error.message.split("\n")[0] ?? "";
}

/** Throws unless `value` is JSON as it stands (finite numbers, plain objects and arrays). */
function checkJson(value: unknown, path: string, depth: number): void {
  if (depth > MAX_DEPTH) throw new SkillFormatError(`${path} is nested too deeply`);
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      throw new SkillFormatError(`${path} is ${value}, which JSON cannot carry`);
    return;
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) checkJson(item, `${path}[${index}]`, depth + 1);
    return;
  }
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, item] of Object.entries(value)) checkJson(item, `${path}.${key}`, depth + 1);
    return;
  }
  throw new SkillFormatError(`${path} is not a JSON value`);
}

/**
 * The fields where two frontmatter objects differ (a host's check that the SKILL.md it read is
 * the one the entry described); empty when they are equal field by field.
 */
export function frontmatterDifferences(
  read: Record<string, unknown>,
  published: Record<string, unknown>,
): string[] {
  const fields = new Set([...Object.keys(read), ...Object.keys(published)]);
  return [...fields].filter(
    (field) =>
      Object.hasOwn(read, field) !== Object.hasOwn(published, field) ||
      stableStringify(read[field]) !== stableStringify(published[field]),
  );
}
