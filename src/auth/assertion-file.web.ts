/** The web build's assertionFromFile: no file system to read a workload token from. */
import { nodeOnly } from "../platform/node-only.js";
import type { assertionFromFile as nodeAssertionFromFile } from "./assertion-file.js";

export const assertionFromFile: typeof nodeAssertionFromFile = () => {
  throw nodeOnly("assertionFromFile", "pass an assertion function of your own");
};
