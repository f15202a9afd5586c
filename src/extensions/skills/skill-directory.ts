/**
 * Serving a folder of skills from disk: every folder under the root that holds a SKILL.md is a
 * skill (its path under the root is the skill path, so `acme/billing/refunds/SKILL.md` is
 * `skill://acme/billing/refunds/SKILL.md`). The scan reads and hashes only files inside skills,
 * skips hidden entries unless asked, follows a symbolic link to a file only when it stays inside
 * the root (links to folders are not followed, so there are no cycles), and stops at the limits.
 */
import type { Dirent } from "node:fs";
import { lstat, readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import {
  buildCatalog,
  type SkillCatalog,
  SkillFileError,
  type SkillSourceFile,
} from "./catalog.js";
import { skillDigest } from "./digest.js";
import { utf8Text } from "./file-bytes.js";
import { isInside, readInside } from "./read-inside.js";
import { SKILL_FILE, SKILL_LIMITS } from "./wire.js";

export interface SkillDirectoryOptions {
  /** Entries (files and folders) the scan visits at most; past it the rest is left out. Default 20,000. */
  maxEntries?: number;
  /** Folder depth under the root the scan descends to. Default 16. */
  maxDepth?: number;
  /** Serve files and folders whose names start with a dot. Default false. */
  includeHidden?: boolean;
}

const DEFAULT_MAX_ENTRIES = 20_000;
const DEFAULT_MAX_DEPTH = 16;
/** No file over a skill's whole size limit can belong to a servable skill. */
const MAX_FILE_BYTES = SKILL_LIMITS.maxTotalBytes;

interface FoundFile {
  path: string[];
  absolute: string;
  size: number;
}

/** Scans `root` and hashes its skills' files; read errors on the root itself throw. */
export async function scanSkillDirectory(
  root: string,
  options: SkillDirectoryOptions = {},
): Promise<SkillCatalog> {
  const realRoot = await realpath(root);
  if (!(await stat(realRoot)).isDirectory()) throw new Error(`${root} is not a directory`);
  const problems: string[] = [];
  const files: FoundFile[] = [];
  const folders: string[][] = [];
  const budget = { entries: options.maxEntries ?? DEFAULT_MAX_ENTRIES };
  const walker = {
    realRoot,
    maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH,
    includeHidden: options.includeHidden ?? false,
    budget,
    problems,
    files,
    folders,
  };
  await walk(walker, realRoot, []);
  const skillRoots = files
    .filter((file) => file.path[file.path.length - 1] === SKILL_FILE && file.path.length > 1)
    .map((file) => file.path.slice(0, -1));
  const inSkill = (path: readonly string[]) =>
    skillRoots.some((skillRoot) => skillRoot.every((segment, index) => path[index] === segment));
  const sources: SkillSourceFile[] = [];
  for (const file of files) {
    // A SKILL.md right at the root is hashed too, so the catalog can say why it is not served.
    const wanted = inSkill(file.path) || (file.path.length === 1 && file.path[0] === SKILL_FILE);
    if (!wanted) continue;
    try {
      sources.push(await hashed(realRoot, file));
    } catch (error) {
      if (!(error instanceof SkillFileError)) throw error;
      problems.push(`${label(file.path)}: left out: ${error.message}`);
    }
  }
  return buildCatalog(sources, { folders: folders.filter(inSkill), problems });
}

interface Walker {
  realRoot: string;
  maxDepth: number;
  includeHidden: boolean;
  budget: { entries: number };
  problems: string[];
  files: FoundFile[];
  folders: string[][];
}

async function walk(walker: Walker, folder: string, path: string[]): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    walker.problems.push(`${label(path)}: not read: ${(error as Error).message}`);
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (!walker.includeHidden && entry.name.startsWith(".")) continue;
    const entryPath = [...path, entry.name];
    if (walker.budget.entries-- <= 0) {
      walker.problems.push(`${label(entryPath)} and the rest: left out (the scan's entry limit)`);
      return;
    }
    const absolute = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entryPath.length > walker.maxDepth) {
        walker.problems.push(
          `${label(entryPath)}: left out (deeper than ${walker.maxDepth} folders)`,
        );
        continue;
      }
      walker.folders.push(entryPath);
      await walk(walker, absolute, entryPath);
    } else if (entry.isFile()) {
      walker.files.push({ path: entryPath, absolute, size: (await lstat(absolute)).size });
    } else if (entry.isSymbolicLink()) {
      const target = await linkedFile(walker.realRoot, absolute);
      if (typeof target === "string") walker.problems.push(`${label(entryPath)}: ${target}`);
      else walker.files.push({ path: entryPath, absolute, size: target.size });
    }
    // Sockets, FIFOs and devices are not files a skill can hold.
  }
}

/** The size of the file a link leads to, or why it is not followed. */
async function linkedFile(realRoot: string, link: string): Promise<{ size: number } | string> {
  let target: string;
  try {
    target = await realpath(link);
  } catch {
    return "a broken symbolic link, left out";
  }
  if (!isInside(realRoot, target))
    return "a symbolic link out of the skills directory, not followed";
  const stats = await stat(target);
  if (!stats.isFile()) return "a symbolic link to a folder, not followed";
  return { size: stats.size };
}

async function hashed(realRoot: string, file: FoundFile): Promise<SkillSourceFile> {
  const read = () => readInside(realRoot, file.absolute, MAX_FILE_BYTES);
  if (file.size > MAX_FILE_BYTES) {
    // Its skill is over the size limit, so the catalog leaves it out: no digest is published.
    return { path: file.path, size: file.size, digest: "", isText: false, read };
  }
  const bytes = await read();
  return {
    path: file.path,
    size: bytes.length,
    digest: skillDigest(bytes),
    isText: utf8Text(bytes) !== undefined,
    read,
  };
}

function label(path: readonly string[]): string {
  return path.join("/");
}
