/**
 * A JWT bearer assertion read from a file each time a token is needed: workload identity
 * platforms (Kubernetes projected service account tokens, cloud workload identity agents)
 * write short-lived tokens to a path and replace them before they expire.
 */
import { readFile, stat } from "node:fs/promises";

/** Assertions are JWTs of a few kilobytes; a bigger file is not one. */
const MAX_ASSERTION_BYTES = 64 * 1024;

export function assertionFromFile(path: string): () => Promise<string> {
  return async () => {
    if ((await stat(path)).size > MAX_ASSERTION_BYTES) {
      throw new TypeError(`the assertion file ${path} is too big to hold a JWT`);
    }
    return (await readFile(path, "utf8")).trim();
  };
}
