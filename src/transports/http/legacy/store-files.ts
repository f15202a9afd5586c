/**
 * File naming and writing shared by the file-backed legacy stores. Session and stream ids come
 * from clients (headers, Last-Event-ID), so they never become paths: a file is named by a hash
 * of the id, which cannot contain a separator, a dot-dot or anything a filesystem minds.
 */
import { createHash } from "node:crypto";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";

/** 128 bits of SHA-256 in lowercase hex: safe on case-insensitive filesystems too. */
export function fileKey(id: string): string {
  return createHash("sha256").update(id, "utf8").digest("hex").slice(0, 32);
}

/** The store's directory, readable by this user only (records hold principals). */
export function ensureDirectory(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
}

/** Replaces a file in one step: a crash leaves the old or the new version, never half of one. */
export function writeFileAtomic(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, path);
}

export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === "ENOENT";
}
