import { constants as fsConstants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { ignoreError } from "../../text/ignored-error.js";
import { CliError } from "./errors.js";

/**
 * Opens a file the command writes (tap's recording, `read --out`), readable by its owner only:
 * what it holds came from a server and may be private. A symlink at the path is refused
 * (O_NOFOLLOW) rather than followed, so a link planted there cannot point the write at another
 * file; an existing file is truncated and narrowed to 0600 too.
 */
export async function openOwnFile(path: string): Promise<FileHandle> {
  const flags =
    fsConstants.O_WRONLY |
    fsConstants.O_CREAT |
    fsConstants.O_TRUNC |
    (fsConstants.O_NOFOLLOW ?? 0);
  let file: FileHandle;
  try {
    file = await open(path, flags, 0o600);
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === "ELOOP"
        ? "it is a symbolic link"
        : (error as Error).message;
    throw new CliError(`cannot write ${path}: ${reason}`);
  }
  try {
    await file.chmod(0o600);
  } catch (error) {
    // Not ours to narrow (a file another user owns, or a filesystem without modes): go on.
    ignoreError(`narrowing ${path} to its owner`, error);
  }
  return file;
}
