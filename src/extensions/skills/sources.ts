/**
 * Ready-made SkillsServer instances: from a folder on disk (rescanned on reload()) or from files
 * held in memory. The disk scanner is imported only when a folder is served, so this entry
 * loads no `node:` module in runtimes that serve skills from memory.
 */
import { skillCatalogFromFiles } from "./memory-skills.js";
import type { SkillDirectoryOptions } from "./skill-directory.js";
import { SkillsServer, type SkillsServerOptions } from "./skills-server.js";

/** Serves every skill folder (a folder holding SKILL.md) under `root`. */
export async function skillsFromDirectory(
  root: string,
  options: SkillsServerOptions & SkillDirectoryOptions = {},
): Promise<SkillsServer> {
  const { scanSkillDirectory } = await import("./skill-directory.js");
  const load = () => scanSkillDirectory(root, options);
  return new SkillsServer(await load(), load, options);
}

/** Serves skills from files keyed by their path (`"git-workflow/SKILL.md"`). */
export async function skillsFromFiles(
  files: Readonly<Record<string, string | Uint8Array>>,
  options: SkillsServerOptions = {},
): Promise<SkillsServer> {
  const load = () => skillCatalogFromFiles(files);
  return new SkillsServer(await load(), load, options);
}
