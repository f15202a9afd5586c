/**
 * Writing a downloaded skill's files under a folder the user chose, and nowhere else. The names
 * come from the server, so each segment is checked (no `..`, separators, control characters or
 * characters Windows refuses), each folder is resolved to its real path and must still be inside
 * the chosen one (a link planted there cannot redirect the write), and each file is created
 * afresh without following links, mode 0644: nothing a server sends becomes executable.
 */
import { constants } from "node:fs";
import { lstat, mkdir, open, realpath, unlink } from "node:fs/promises";
import { join, sep } from "node:path";
import { printableLine } from "../../text/printable.js";
import { CliError } from "../core/errors.js";

/** A file to write: its path under the skill's folder, and its verified bytes. */
interface FileToWrite {
  path: readonly string[];
  bytes: Uint8Array;
}

const CREATE =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
/** Separators and what Windows refuses in names; control characters are caught by printableLine. */
const UNSAFE = /[/\\<>:"|?*]/;
const MAX_NAME_BYTES = 255;

/** Throws unless `segment` is a plain file or folder name on every common file system. */
export function checkFileName(segment: string): void {
  const unsafe =
    segment === "" ||
    segment === "." ||
    segment === ".." ||
    UNSAFE.test(segment) ||
    segment !== printableLine(segment) ||
    /[. ]$/.test(segment) ||
    Buffer.byteLength(segment) > MAX_NAME_BYTES;
  if (unsafe) {
    throw new CliError(`refused to write a file named "${printableLine(segment)}"`);
  }
}

/**
 * Writes `files` under `<root>/<folder…>/`; returns the paths written. An existing file is an
 * error unless `overwrite` (then a regular file is replaced; anything else is still refused).
 */
export async function writeFilesInside(
  root: string,
  folder: readonly string[],
  files: readonly FileToWrite[],
  overwrite: boolean,
): Promise<string[]> {
  for (const segment of folder) checkFileName(segment);
  for (const file of files) for (const segment of file.path) checkFileName(segment);
  await mkdir(root, { recursive: true });
  const realRoot = await realpath(root);
  const written: string[] = [];
  for (const file of files) {
    const segments = [...folder, ...file.path];
    const parent = join(realRoot, ...segments.slice(0, -1));
    await mkdir(parent, { recursive: true });
    const realParent = await realpath(parent);
    if (realParent !== realRoot && !realParent.startsWith(realRoot + sep)) {
      throw new CliError(`refused to write through a link out of ${printableLine(root)}`);
    }
    const target = join(realParent, segments[segments.length - 1] as string);
    await writeNew(target, file.bytes, overwrite);
    written.push(target);
  }
  return written;
}

async function writeNew(path: string, bytes: Uint8Array, overwrite: boolean): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, CREATE, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EEXIST" && code !== "ELOOP") throw error;
    if (!overwrite) {
      throw new CliError(`${printableLine(path)} exists (--force replaces files)`);
    }
    if (!(await lstat(path)).isFile()) {
      throw new CliError(`${printableLine(path)} exists and is not a regular file`);
    }
    await unlink(path);
    handle = await open(path, CREATE, 0o644);
  }
  try {
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
}
