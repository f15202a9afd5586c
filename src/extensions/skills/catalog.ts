/**
 * The skills a server serves, built once from a set of files (a directory scan or files held in
 * memory) and then only looked up: the `skills/list` entries, each served file by URI, and the
 * children of each directory resource. Every file is served because it belongs to a valid skill;
 * a request names a URI, which is a key here, never a path.
 */
import type { Resource } from "../../protocol/mcp-types.js";
import { utf8Text } from "./file-bytes.js";
import { parseFrontmatter, SkillFormatError } from "./frontmatter.js";
import { mimeTypeOf } from "./mime-types.js";
import { skillUri } from "./uris.js";
import {
  DIRECTORY_MIME_TYPE,
  SKILL_FILE,
  SKILL_LIMITS,
  type Skill,
  type SkillResource,
} from "./wire.js";

/** A file under the skills root, hashed, and how to read it again when a client asks. */
export interface SkillSourceFile {
  /** Its path under the root, one name per segment. */
  path: readonly string[];
  size: number;
  digest: string;
  /** Whether its bytes are UTF-8 text (served as `text`, else as a base64 `blob`). */
  isText: boolean;
  read(): Promise<Uint8Array>;
}

/**
 * Why a served file could not be read, in words that name no path (they reach clients):
 * "gone" when it is no longer there, "refused" when it may not be read.
 */
export class SkillFileError extends Error {
  override name = "SkillFileError";
  readonly reason: "gone" | "refused";
  constructor(reason: "gone" | "refused", message: string) {
    super(message);
    this.reason = reason;
  }
}

/** A file the catalog serves. */
export interface CatalogFile {
  uri: string;
  mimeType: string;
  size: number;
  digest: string;
  read(): Promise<Uint8Array>;
}

export class SkillCatalog {
  /** The skills, ordered by URI. */
  readonly skills: readonly Skill[];
  /** Why skills found were not served (bad frontmatter, a name that is not the directory's, limits). */
  readonly problems: readonly string[];
  private readonly bySkillUri: ReadonlyMap<string, Skill>;
  private readonly files: ReadonlyMap<string, CatalogFile>;
  private readonly directories: ReadonlyMap<string, Resource[]>;

  /** @internal buildCatalog makes these. */
  constructor(
    skills: Skill[],
    files: Map<string, CatalogFile>,
    directories: Map<string, Resource[]>,
    problems: string[],
  ) {
    this.skills = skills;
    this.bySkillUri = new Map(skills.map((skill) => [skill.uri, skill]));
    this.files = files;
    this.directories = directories;
    this.problems = problems;
  }

  /** The skill whose SKILL.md is at `uri`. */
  skill(uri: string): Skill | undefined {
    return this.bySkillUri.get(uri);
  }

  /** A served file. */
  file(uri: string): CatalogFile | undefined {
    return this.files.get(uri);
  }

  /** The direct children of a directory resource (a skill root or a folder in one). */
  directory(uri: string): readonly Resource[] | undefined {
    return this.directories.get(uri);
  }

  /** Each SKILL.md as resources/list shows it: named and described by its frontmatter. */
  skillResources(): Resource[] {
    return this.skills.map((skill) => ({
      uri: skill.uri,
      name: skill.frontmatter.name,
      description: skill.frontmatter.description,
      mimeType: "text/markdown",
      size: (this.files.get(skill.uri) as CatalogFile).size,
    }));
  }
}

interface CatalogInput {
  /** Folders that may hold no file (empty ones), so they are still directory resources. */
  folders?: readonly (readonly string[])[];
  /** Problems found before (by a directory scan), listed first. */
  problems?: readonly string[];
}

/**
 * Finds the skills among `files` (each folder holding a SKILL.md, at any depth but the root)
 * and builds their entries. Skills that break the format or the limits are left out, with the
 * reason in `problems`.
 */
export async function buildCatalog(
  files: readonly SkillSourceFile[],
  input: CatalogInput = {},
): Promise<SkillCatalog> {
  const problems = [...(input.problems ?? [])];
  const folders = input.folders ?? [];
  const sorted = [...files].sort((a, b) => compareText(a.path.join("/"), b.path.join("/")));
  const skills: Skill[] = [];
  const served = new Map<string, CatalogFile>();
  const skillRoots: (readonly string[])[] = [];
  for (const file of sorted) {
    if (file.path[file.path.length - 1] !== SKILL_FILE) continue;
    const root = file.path.slice(0, -1);
    const label = root.join("/") || "(the root)";
    if (root.length === 0) {
      problems.push(`${SKILL_FILE} at the root is not served: a skill is a folder under the root`);
      continue;
    }
    const members = sorted.filter((other) => isUnder(other.path, root));
    const problem = await skillProblem(file, root, members);
    if (typeof problem === "string") {
      problems.push(`${label}: not served: ${problem}`);
      continue;
    }
    const resources: SkillResource[] = [];
    for (const member of [file, ...members.filter((other) => other !== file)]) {
      const uri = skillUri(member.path);
      resources.push({ uri, digest: member.digest, size: member.size });
      if (!served.has(uri)) served.set(uri, catalogFile(uri, member));
    }
    skills.push({ uri: skillUri(file.path), frontmatter: problem.frontmatter, resources });
    skillRoots.push(root);
  }
  skills.sort((a, b) => compareText(a.uri, b.uri));
  const directories = directoryIndex(skillRoots, sorted, folders);
  return new SkillCatalog(skills, served, directories, problems);
}

/** Why the skill at `root` cannot be served, or its frontmatter when it can. */
async function skillProblem(
  skillFile: SkillSourceFile,
  root: readonly string[],
  members: readonly SkillSourceFile[],
): Promise<string | { frontmatter: Skill["frontmatter"] }> {
  if (members.length > SKILL_LIMITS.maxFiles) {
    return `it has ${members.length} files (at most ${SKILL_LIMITS.maxFiles})`;
  }
  const total = members.reduce((sum, member) => sum + member.size, 0);
  if (total > SKILL_LIMITS.maxTotalBytes) {
    return `its files add up to ${total} bytes (at most ${SKILL_LIMITS.maxTotalBytes})`;
  }
  const text = utf8Text(await skillFile.read());
  if (text === undefined) return `${SKILL_FILE} is not UTF-8 text`;
  let frontmatter: Skill["frontmatter"];
  try {
    frontmatter = parseFrontmatter(text);
  } catch (error) {
    if (error instanceof SkillFormatError) return error.message;
    throw error;
  }
  const folder = root[root.length - 1];
  if (frontmatter.name !== folder) {
    return `its name is "${frontmatter.name}" but its folder is "${folder}" (they must be equal)`;
  }
  return { frontmatter };
}

function catalogFile(uri: string, file: SkillSourceFile): CatalogFile {
  const name = file.path[file.path.length - 1] ?? "";
  return {
    uri,
    mimeType: mimeTypeOf(name, file.isText),
    size: file.size,
    digest: file.digest,
    read: () => file.read(),
  };
}

/** Each directory inside a served skill (its root included) -> its direct children. */
function directoryIndex(
  skillRoots: readonly (readonly string[])[],
  files: readonly SkillSourceFile[],
  folders: readonly (readonly string[])[],
): Map<string, Resource[]> {
  const inSkill = (path: readonly string[]) => skillRoots.some((root) => isUnder(path, root, true));
  const children = new Map<string, Map<string, Resource>>();
  const addChild = (parent: readonly string[], child: Resource) => {
    const key = skillUri(parent);
    const map = children.get(key) ?? new Map<string, Resource>();
    children.set(key, map);
    map.set(child.uri, child);
  };
  const addFolder = (path: readonly string[]) => {
    for (let depth = path.length; depth > 0; depth--) {
      const folder = path.slice(0, depth);
      if (!inSkill(folder)) break;
      const uri = skillUri(folder);
      if (children.has(uri) && depth < path.length) break;
      if (!children.has(uri)) children.set(uri, new Map());
      const parent = folder.slice(0, -1);
      if (inSkill(parent)) {
        addChild(parent, {
          uri,
          name: folder[folder.length - 1] ?? "",
          mimeType: DIRECTORY_MIME_TYPE,
        });
      }
    }
  };
  for (const root of skillRoots) addFolder(root);
  for (const folder of folders) if (inSkill(folder)) addFolder(folder);
  for (const file of files) {
    const parent = file.path.slice(0, -1);
    if (!inSkill(parent)) continue;
    addFolder(parent);
    const name = file.path[file.path.length - 1] ?? "";
    const uri = skillUri(file.path);
    addChild(parent, { uri, name, mimeType: mimeTypeOf(name, file.isText), size: file.size });
  }
  const index = new Map<string, Resource[]>();
  for (const [uri, map] of children) {
    index.set(
      uri,
      [...map.values()].sort((a, b) => compareText(a.uri, b.uri)),
    );
  }
  return index;
}

/** Whether `path` is strictly inside `root` (or equal to it, with `orEqual`). */
function isUnder(path: readonly string[], root: readonly string[], orEqual = false): boolean {
  if (path.length < root.length || (!orEqual && path.length === root.length)) return false;
  return root.every((segment, index) => path[index] === segment);
}

/** Code-unit order, the same on every machine (not locale order). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
