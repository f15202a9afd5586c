/** The web build's folder scan: no file system in workerd or a page. */
import { nodeOnly } from "../../platform/node-only.js";
import type * as node from "./skill-directory.js";

export type { SkillDirectoryOptions } from "./skill-directory.js";

export const scanSkillDirectory: typeof node.scanSkillDirectory = () => {
  throw nodeOnly("skillsFromDirectory", "serve skills from memory with skillsFromFiles");
};
