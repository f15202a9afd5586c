/**
 * The Skills extension's wire shapes and fixed numbers (SEP-2640, `io.modelcontextprotocol/skills`,
 * specification/stable/skills.mdx of modelcontextprotocol/ext-skills): the entry a server
 * publishes for each skill, the three methods, and the per-skill limits every host accepts.
 */
import type { Resource } from "../../protocol/mcp-types.js";

/** The extension's identifier under `capabilities.extensions`. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

export const SKILLS_LIST = "skills/list";
export const SKILLS_GET = "skills/get";
/** Optional: only a server declaring `directoryRead: true` answers it. */
export const DIRECTORY_READ = "resources/directory/read";

/** The mimeType of a directory resource (a skill root or one of its subdirectories). */
export const DIRECTORY_MIME_TYPE = "inode/directory";
export const SKILL_FILE = "SKILL.md";
export const SKILL_URI_SCHEME = "skill";

/** What a conforming host must accept per skill; a server should not serve more (Limits). */
export const SKILL_LIMITS = Object.freeze({
  /** Entries of a skill's `resources`, SKILL.md included. */
  maxFiles: 512,
  /** Sum of `size` over a skill's `resources` (16 MiB). */
  maxTotalBytes: 16 * 1024 * 1024,
});

/** The extension's settings as a server declares them. */
export interface SkillsCapability {
  /** The server answers `resources/directory/read`. */
  directoryRead?: boolean;
}

/** One file of a skill: its resource URI, and the digest and size of its raw bytes. */
export interface SkillResource {
  uri: string;
  /** `sha256:` and 64 lowercase hex digits. */
  digest: string;
  size: number;
}

/** A SKILL.md's YAML frontmatter as JSON: name and description always, every other field as written. */
export interface SkillFrontmatter {
  name: string;
  description: string;
  [field: string]: unknown;
}

/** The entry for one skill, the same in `skills/list` and `skills/get`. */
export interface Skill {
  /** URI of the skill's SKILL.md (readable with resources/read). */
  uri: string;
  frontmatter: SkillFrontmatter;
  /** Every file of the skill, or "dynamic" when its content is generated and has no stable digests. */
  resources: SkillResource[] | "dynamic";
}

export interface ListSkillsResult {
  skills: Skill[];
  nextCursor?: string;
}

export interface GetSkillResult {
  skill: Skill;
}

/** The direct children of a directory resource: files, and subdirectories as `inode/directory`. */
export interface DirectoryReadResult {
  resources: Resource[];
  nextCursor?: string;
}
