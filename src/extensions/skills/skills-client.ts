/**
 * The host side of the Skills extension over an McpClient: list and get entries (checked),
 * read a skill's files verified against its entry (size, digest, listed at all), load a
 * SKILL.md (also its frontmatter against the entry's), read directories, and fetch a whole skill
 * as files with relative paths (for a download). It calls only what the server declared.
 */
import type { McpClientBase } from "../../client/mcp-client.js";
import { collectPages } from "../../client/pagination.js";
import type { CallOptions, Paginated } from "../../client/types.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import type { Resource } from "../../protocol/mcp-types.js";
import { skillDigest } from "./digest.js";
import { checkSkillEntry, SkillEntryError, skillLimitProblem } from "./entry-check.js";
import { contentBytes, utf8Text } from "./file-bytes.js";
import { frontmatterDifferences, parseFrontmatter, splitFrontmatter } from "./frontmatter.js";
import { relativeSegments, skillRootOfUri } from "./uris.js";
import {
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
  type SkillsCapability,
} from "./wire.js";

/** Content that is not what the entry described: it must not be used (SEP-2640, Verification on Read). */
export class SkillVerificationError extends Error {
  override name = "SkillVerificationError";
}

/** A SKILL.md read and verified: its text, and the markdown after the frontmatter. */
export interface LoadedSkill {
  skill: Skill;
  text: string;
  body: string;
}

/** One file of a fetched skill: its path under the skill root and its (verified) bytes. */
export interface SkillFile {
  uri: string;
  path: string[];
  bytes: Uint8Array;
}

/** Folder depth a dynamic skill's directories are read to. */
const MAX_DIRECTORY_DEPTH = 16;

export class SkillsClient {
  private readonly client: McpClientBase;

  constructor(client: McpClientBase) {
    this.client = client;
  }

  /** The server's declaration of the extension (its settings), or undefined when it has none. */
  get capability(): SkillsCapability | undefined {
    const declared = this.client.serverCapabilities?.extensions?.[SKILLS_EXTENSION];
    if (typeof declared !== "object" || declared === null || Array.isArray(declared)) {
      return undefined;
    }
    return declared as SkillsCapability;
  }

  /**
   * Every listed skill, all pages. An entry that breaks the rules is left out and described in
   * `problems` (one bad entry does not hide the rest).
   */
  async list(options?: CallOptions): Promise<{ skills: Skill[]; problems: string[] }> {
    this.requireDeclared();
    const entries = await collectPages(
      SKILLS_LIST,
      (cursor) =>
        this.request<ListSkillsResult & Paginated>(
          SKILLS_LIST,
          cursor === undefined ? {} : { cursor },
          options,
        ),
      (page) => (Array.isArray(page.skills) ? page.skills : []),
    );
    const skills: Skill[] = [];
    const problems: string[] = [];
    for (const entry of entries) {
      try {
        skills.push(checkSkillEntry(entry));
      } catch (error) {
        if (!(error instanceof SkillEntryError)) throw error;
        problems.push(error.message);
      }
    }
    return { skills, problems };
  }

  /** The current entry of the skill whose SKILL.md is at `uri` (SkillEntryError if malformed). */
  async get(uri: string, options?: CallOptions): Promise<Skill> {
    this.requireDeclared();
    const result = await this.request<GetSkillResult>(SKILLS_GET, { uri }, options);
    const skill = checkSkillEntry(result.skill);
    if (skill.uri !== uri) {
      throw new SkillEntryError(`skills/get for ${uri} answered with the entry of ${skill.uri}`);
    }
    return skill;
  }

  /**
   * One file of `skill`, verified: it must be listed in the entry, and its bytes must have the
   * listed size and digest (SkillVerificationError otherwise). A "dynamic" skill's files cannot
   * be verified; they are read with the per-skill size limit as the only bound.
   */
  async readFile(skill: Skill, uri: string, options?: CallOptions): Promise<Uint8Array> {
    const listed =
      skill.resources === "dynamic" ? undefined : skill.resources.find((file) => file.uri === uri);
    if (skill.resources !== "dynamic" && !listed) {
      throw new SkillVerificationError(
        `${uri} is not one of the files the entry of ${skill.uri} lists`,
      );
    }
    const result = await this.client.readResource(uri, options);
    const contents = result.contents?.find((item) => item.uri === uri) ?? result.contents?.[0];
    const bytes = contents ? contentBytes(contents) : undefined;
    if (!bytes) throw new SkillVerificationError(`resources/read of ${uri} returned no content`);
    if (!listed) {
      if (bytes.length > SKILL_LIMITS.maxTotalBytes) {
        throw new SkillVerificationError(`${uri} is over ${SKILL_LIMITS.maxTotalBytes} bytes`);
      }
      return bytes;
    }
    if (bytes.length !== listed.size) {
      throw new SkillVerificationError(
        `${uri} is ${bytes.length} bytes, the entry says ${listed.size}: refresh the entry with skills/get`,
      );
    }
    if (skillDigest(bytes) !== listed.digest) {
      throw new SkillVerificationError(
        `${uri} does not match the entry's digest: refresh the entry with skills/get`,
      );
    }
    return bytes;
  }

  /** Reads the skill's SKILL.md, verified, and checks its frontmatter field by field against the entry's. */
  async load(skill: Skill, options?: CallOptions): Promise<LoadedSkill> {
    const bytes = await this.readFile(skill, skill.uri, options);
    const text = utf8Text(bytes);
    if (text === undefined) throw new SkillVerificationError(`${skill.uri} is not UTF-8 text`);
    let read: Record<string, unknown>;
    try {
      read = parseFrontmatter(text);
    } catch (error) {
      throw new SkillVerificationError(`${skill.uri}: ${(error as Error).message}`);
    }
    const differences = frontmatterDifferences(read, skill.frontmatter);
    if (differences.length > 0) {
      throw new SkillVerificationError(
        `${skill.uri}: the frontmatter differs from the entry's in ${differences.join(", ")}`,
      );
    }
    return { skill, text, body: splitFrontmatter(text).body };
  }

  /** The direct children of a directory resource; only on a server that declared directoryRead. */
  async readDirectory(uri: string, options?: CallOptions): Promise<Resource[]> {
    if (this.capability?.directoryRead !== true) {
      throw new Error(`the server does not declare ${SKILLS_EXTENSION} with directoryRead: true`);
    }
    return collectPages(
      DIRECTORY_READ,
      (cursor) =>
        this.request<DirectoryReadResult & Paginated>(
          DIRECTORY_READ,
          cursor === undefined ? { uri } : { uri, cursor },
          options,
        ),
      (page) => (Array.isArray(page.resources) ? page.resources : []),
    );
  }

  /**
   * Every file of the skill, verified, with its path under the skill root (for writing it out).
   * A skill over the limits every host accepts is refused before anything is read. A dynamic
   * skill's files are found through directory reads (so only on a server with directoryRead),
   * bounded by the same limits.
   */
  async fetchAll(skill: Skill, options?: CallOptions): Promise<SkillFile[]> {
    const overLimit = skillLimitProblem(skill);
    if (overLimit) throw new SkillVerificationError(`${skill.uri} is not fetched: ${overLimit}`);
    const root = skillRootOfUri(skill.uri) as string;
    await this.load(skill, options);
    const uris =
      skill.resources === "dynamic"
        ? await this.dynamicFiles(root, options)
        : skill.resources.map((file) => file.uri);
    const files: SkillFile[] = [];
    let total = 0;
    for (const uri of uris) {
      const path = relativeSegments(root, uri);
      if (!path) throw new SkillVerificationError(`${uri} is not a file path under ${root}`);
      const bytes = await this.readFile(skill, uri, options);
      total += bytes.length;
      if (total > SKILL_LIMITS.maxTotalBytes) {
        throw new SkillVerificationError(
          `${skill.uri} is over ${SKILL_LIMITS.maxTotalBytes} bytes`,
        );
      }
      files.push({ uri, path, bytes });
    }
    return files;
  }

  /** The file URIs under a dynamic skill's root, directory by directory, within the limits. */
  private async dynamicFiles(root: string, options?: CallOptions): Promise<string[]> {
    const files: string[] = [];
    const pending: { uri: string; depth: number }[] = [{ uri: root, depth: 0 }];
    while (pending.length > 0) {
      const { uri, depth } = pending.shift() as { uri: string; depth: number };
      for (const child of await this.readDirectory(uri, options)) {
        if (typeof child.uri !== "string" || !child.uri.startsWith(`${root}/`)) continue;
        if (child.mimeType === DIRECTORY_MIME_TYPE) {
          if (depth + 1 < MAX_DIRECTORY_DEPTH) pending.push({ uri: child.uri, depth: depth + 1 });
          continue;
        }
        files.push(child.uri);
        if (files.length > SKILL_LIMITS.maxFiles) {
          throw new SkillVerificationError(`${root} has over ${SKILL_LIMITS.maxFiles} files`);
        }
      }
    }
    return files;
  }

  private requireDeclared(): void {
    if (!this.capability) {
      throw new Error(`the server does not declare the ${SKILLS_EXTENSION} extension`);
    }
  }

  private request<T>(method: string, params: JsonObject, options?: CallOptions): Promise<T> {
    return this.client.request(method, params, options) as Promise<T>;
  }
}
