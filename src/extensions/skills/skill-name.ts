/**
 * The Agent Skills naming rules (agentskills.io/specification, `name` field), which SEP-2640
 * applies to the last segment of every skill path: 1-64 characters of lowercase ASCII letters,
 * digits and hyphens, no hyphen first, last or twice in a row.
 */
const SKILL_NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** The longest description the Agent Skills specification allows. */
export const MAX_DESCRIPTION_LENGTH = 1024;

export function isSkillName(name: string): boolean {
  return SKILL_NAME.test(name);
}

/** Why `name` is not a valid skill name, or undefined when it is. */
export function skillNameProblem(name: string): string | undefined {
  if (isSkillName(name)) return undefined;
  if (name.length === 0) return "the name is empty";
  if (name.length > 64) return `the name is ${name.length} characters long (at most 64)`;
  if (name.includes("--")) return "the name has two hyphens in a row";
  if (name.startsWith("-") || name.endsWith("-")) return "the name starts or ends with a hyphen";
  return "the name may hold only lowercase letters a-z, digits and hyphens";
}
