/**
 * The Skills extension (SEP-2640, `io.modelcontextprotocol/skills`): serve a folder of Agent
 * Skills (`SKILL.md` folders) from an McpServer, and list, fetch and verify a server's skills
 * from an McpClient.
 *
 * @module mcpwire/extensions/skills
 */
export { type CatalogFile, SkillCatalog } from "./catalog.js";
export { isSkillDigest, skillDigest } from "./digest.js";
export { checkSkillEntry, SkillEntryError, skillLimitProblem } from "./entry-check.js";
export { parseFrontmatter, SkillFormatError, splitFrontmatter } from "./frontmatter.js";
export type { SkillDirectoryOptions } from "./skill-directory.js";
export { isSkillName } from "./skill-name.js";
export {
  type LoadedSkill,
  type SkillFile,
  SkillsClient,
  SkillVerificationError,
} from "./skills-client.js";
export { SkillsServer, type SkillsServerOptions } from "./skills-server.js";
export { skillsFromDirectory, skillsFromFiles } from "./sources.js";
export {
  DIRECTORY_MIME_TYPE,
  DIRECTORY_READ,
  type DirectoryReadResult,
  type GetSkillResult,
  type ListSkillsResult,
  SKILL_LIMITS,
  SKILLS_EXTENSION,
  SKILLS_GET,
  SKILLS_LIST,
  type Skill,
  type SkillFrontmatter,
  type SkillResource,
  type SkillsCapability,
} from "./wire.js";
