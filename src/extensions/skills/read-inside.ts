/**
 * Reading one file under a root directory as the file it is now: its real path must still be
 * inside the root (a file swapped for a link to /etc/passwd after the scan is refused), it must
 * be a regular file (a FIFO would block the read forever), and no more than `maxBytes` are read
 * however large it has grown since.
 */
import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import { sep } from "node:path";
import { concatBytes } from "../../platform/bytes.js";
import { SkillFileError } from "./catalog.js";

/** Read size once the file turns out longer than its stat said. */
const CHUNK = 64 * 1024;
const FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Whether `path` is `root` or inside it (both real, absolute paths). */
export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

export async function readInside(
  realRoot: string,
  path: string,
  maxBytes: number,
): Promise<Uint8Array> {
  let real: string;
  try {
    real = await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new SkillFileError("gone", "the file is no longer there");
    }
    throw error;
  }
  if (!isInside(realRoot, real)) {
    throw new SkillFileError("refused", "the file now leads outside the skills directory");
  }
  const handle = await open(real, FLAGS).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") throw new SkillFileError("gone", "the file is no longer there");
    if (error.code === "ELOOP") throw new SkillFileError("refused", "the file became a link");
    throw error;
  });
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new SkillFileError("refused", "it is not a regular file");
    if (stats.size > maxBytes) {
      throw new SkillFileError("refused", `the file is over ${maxBytes} bytes`);
    }
    // Read to the end, but never past maxBytes: the file may have grown since the stat.
    const chunks: Uint8Array[] = [];
    let length = 0;
    for (;;) {
      const chunk = new Uint8Array(
        Math.max(Math.min(stats.size - length, maxBytes + 1 - length), CHUNK),
      );
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, length);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      length += bytesRead;
      if (length > maxBytes)
        throw new SkillFileError("refused", `the file is over ${maxBytes} bytes`);
    }
    return concatBytes(chunks, length);
  } finally {
    await handle.close();
  }
}
