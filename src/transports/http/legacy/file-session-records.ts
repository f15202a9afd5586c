/**
 * Session records in files, one small JSON file per session, each replaced atomically. Pair it
 * with a FileEventStore (in another directory) so that a restarted server on the same host can
 * rebuild its legacy sessions and resume their streams.
 */
import { readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { isPlainObject } from "../../../jsonrpc/errors.js";
import type { SessionRecord, SessionRecordStore } from "./session-records.js";
import {
  ensureDirectory,
  fileKey,
  isMissing,
  readIfExists,
  writeFileAtomic,
} from "./store-files.js";

export interface FileSessionRecordStoreOptions {
  /**
   * Where the records go; created if missing (mode 0700: records hold principals). An existing
   * one must be this user's and writable by nobody else (the constructor throws otherwise).
   */
  directory: string;
}

const SUFFIX = ".json";

export class FileSessionRecordStore implements SessionRecordStore {
  readonly directory: string;

  constructor(options: FileSessionRecordStoreOptions) {
    this.directory = options.directory;
    ensureDirectory(this.directory);
  }

  load(id: string): SessionRecord | undefined {
    const record = this.read(this.pathFor(id));
    // A hash names the file; the id inside is what counts.
    return record?.id === id ? record : undefined;
  }

  save(record: SessionRecord): void {
    writeFileAtomic(this.pathFor(record.id), JSON.stringify(record));
  }

  delete(id: string): void {
    removeIfExists(this.pathFor(id));
  }

  removeIdle(usedBefore: number): string[] {
    const removed: string[] = [];
    for (const name of readdirSync(this.directory)) {
      if (!name.endsWith(SUFFIX)) continue;
      const path = join(this.directory, name);
      const record = this.read(path);
      if (record && record.lastUsed >= usedBefore) continue;
      removeIfExists(path);
      if (record) removed.push(record.id);
    }
    return removed;
  }

  private pathFor(id: string): string {
    return join(this.directory, `${fileKey(id)}${SUFFIX}`);
  }

  /** The record in a file; undefined when there is none or it is not one (never throws). */
  private read(path: string): SessionRecord | undefined {
    const text = readIfExists(path);
    if (text === undefined) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (
      !isPlainObject(value) ||
      typeof value.id !== "string" ||
      typeof value.lastUsed !== "number" ||
      (typeof value.principal !== "string" && value.principal !== null) ||
      !isPlainObject(value.state) ||
      typeof value.state.protocolVersion !== "string" ||
      !Array.isArray(value.streams) ||
      !Array.isArray(value.state.subscriptions)
    ) {
      return undefined;
    }
    return value as unknown as SessionRecord;
  }
}

function removeIfExists(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}
