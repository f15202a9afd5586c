/**
 * File naming and writing shared by the file-backed legacy stores. Session and stream ids come
 * from clients (headers, Last-Event-ID), so they never become paths: a file is named by a hash
 * of the id, which cannot contain a separator, a dot-dot or anything a filesystem minds.
 *
 * The directories are trusted only when nobody else can change them: a store refuses one that
 * others may write to or that belongs to another user, and it never follows a symbolic link
 * where it reads or writes (someone who planted one could make the server overwrite, or serve,
 * any file it may open).
 */
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeSync,
} from "node:fs";

/** 128 bits of SHA-256 in lowercase hex: safe on case-insensitive filesystems too. */
export function fileKey(id: string): string {
  return createHash("sha256").update(id, "utf8").digest("hex").slice(0, 32);
}

// Windows has no O_NOFOLLOW (nor symlinks an unprivileged peer could plant there).
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * The store's root directory: created (mode 0700: records hold principals) when missing, and
 * refused with a clear error when it is a symbolic link, not a directory, writable by group or
 * others, or owned by another user.
 */
export function ensureDirectory(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  checkTrusted(path, lstatSync(path));
}

/**
 * A directory of ours inside the root (a session's): made 0700 here, or, when something is
 * there already, used only if it passes the same checks as the root.
 */
export function ensureSubdirectory(path: string): void {
  try {
    mkdirSync(path, { mode: 0o700 });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException)?.code !== "EEXIST") throw error;
  }
  checkTrusted(path, lstatSync(path));
}

function checkTrusted(path: string, stats: Stats): void {
  const refuse = (why: string) => {
    throw new Error(`Refusing the store directory ${path}: ${why}`);
  };
  if (stats.isSymbolicLink()) refuse("it is a symbolic link (give the real path)");
  if (!stats.isDirectory()) refuse("it is not a directory");
  if ((stats.mode & 0o022) !== 0) {
    refuse(`group or others may write to it (mode ${(stats.mode & 0o777).toString(8)}; use 0700)`);
  }
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) {
    refuse(`it is owned by uid ${stats.uid}, not by this process (uid ${uid})`);
  }
}

/**
 * Replaces a file in one step: a crash leaves the old or the new version, never half of one.
 * The temporary file gets a fresh random name and is created exclusively (an existing file or
 * link there is an error, never followed); the rename replaces whatever `path` was, a planted
 * link included, without following it.
 */
export function writeFileAtomic(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW,
    0o600,
  );
  try {
    writeAll(fd, text);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temporary, path);
  } catch (error) {
    unlinkSync(temporary);
    throw error;
  }
}

/** Appends to a file (created 0600 if missing), never through a symbolic link. */
export function appendNoFollow(path: string, text: string): void {
  const fd = openNoFollow(
    path,
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW,
  );
  try {
    writeAll(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** A file's text, or undefined when there is none; a symbolic link there is an error. */
export function readIfExists(path: string): string | undefined {
  let fd: number;
  try {
    fd = openNoFollow(path, constants.O_RDONLY | NO_FOLLOW);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  try {
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

function openNoFollow(path: string, flags: number): number {
  try {
    return openSync(path, flags, 0o600);
  } catch (error) {
    // O_NOFOLLOW on a link fails with ELOOP (EMLINK on some BSDs).
    const code = (error as NodeJS.ErrnoException)?.code;
    if (code === "ELOOP" || code === "EMLINK") {
      throw new Error(`Refusing to use ${path}: it is a symbolic link`, { cause: error });
    }
    throw error;
  }
}

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  for (let written = 0; written < bytes.length; ) {
    written += writeSync(fd, bytes, written, bytes.length - written);
  }
}

export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === "ENOENT";
}
