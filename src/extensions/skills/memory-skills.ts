/**
 * Skills held in memory instead of on disk, keyed by their path under a root
 * (`"git-workflow/SKILL.md"`): for runtimes without a file system, generated skills and tests.
 */
import { buildCatalog, type SkillCatalog, type SkillSourceFile } from "./catalog.js";
import { skillDigest } from "./digest.js";
import { utf8Text } from "./file-bytes.js";

export async function skillCatalogFromFiles(
  files: Readonly<Record<string, string | Uint8Array>>,
): Promise<SkillCatalog> {
  const sources: SkillSourceFile[] = [];
  for (const [key, content] of Object.entries(files)) {
    const path = key.split("/");
    if (path.some((segment) => segment === "" || segment === "." || segment === "..")) {
      throw new TypeError(`"${key}" is not a relative path of names separated by "/"`);
    }
    const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content.slice();
    sources.push({
      path,
      size: bytes.length,
      digest: skillDigest(bytes),
      isText: utf8Text(bytes) !== undefined,
      read: async () => bytes,
    });
  }
  return buildCatalog(sources);
}
