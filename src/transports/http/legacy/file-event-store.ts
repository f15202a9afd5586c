/**
 * An EventStore in files, for a server on one host that restarts (rolling restarts, systemd):
 * one append-only NDJSON file per stream, one directory per session. Appends are synchronous,
 * so an event is in the file before it goes out on the wire: a `kill -9` keeps everything a
 * client could have seen, and more (not a power cut, which would need an fsync per event).
 *
 * One process at a time serves a session from a directory (the one listening on the port).
 */
import { lstatSync, readdirSync, rmSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { isPlainObject } from "../../../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../../../jsonrpc/types.js";
import type { EventStore, StoredEvent } from "./event-store.js";
import {
  appendNoFollow,
  ensureDirectory,
  ensureSubdirectory,
  fileKey,
  isMissing,
  readIfExists,
  writeFileAtomic,
} from "./store-files.js";

export interface FileEventStoreOptions {
  /**
   * Where the files go; created if missing (mode 0700). Give each server (or store) its own. An
   * existing one must be this user's and writable by nobody else (the constructor throws).
   */
  directory: string;
  /**
   * Events kept per stream: at least the newest this many, at most twice as many (the file is
   * compacted when it reaches that). Default 1,000.
   */
  maxEventsPerStream?: number;
  /** Streams kept per session; the least recently written is dropped. Default 100. */
  maxStreamsPerSession?: number;
}

/** Sessions whose line counts this process remembers (the rest are counted again if needed). */
const MAX_CACHED_SESSIONS = 10_000;
const SUFFIX = ".ndjson";

export class FileEventStore implements EventStore {
  readonly directory: string;
  private readonly maxEvents: number;
  private readonly maxStreams: number;
  /** Lines per stream file, per session directory, as far as this process knows. */
  private readonly lineCounts = new Map<string, Map<string, number>>();

  constructor(options: FileEventStoreOptions) {
    this.directory = options.directory;
    this.maxEvents = Math.max(1, options.maxEventsPerStream ?? 1_000);
    this.maxStreams = Math.max(1, options.maxStreamsPerSession ?? 100);
    ensureDirectory(this.directory);
  }

  append(sessionId: string, streamId: string, event: StoredEvent): void {
    const sessionKey = fileKey(sessionId);
    const streamKey = fileKey(streamId);
    const counts = this.countsFor(sessionKey);
    const path = this.streamPath(sessionKey, streamKey);
    let lines = counts.get(streamKey);
    let prefix = "";
    if (lines === undefined) {
      const existing = readIfExists(path);
      if (existing === undefined) {
        ensureSubdirectory(this.sessionPath(sessionKey));
        this.dropOldStreams(sessionKey, this.maxStreams - 1);
        lines = 0;
      } else {
        lines = countLines(existing);
        // A write cut short by a crash must not swallow the next line.
        if (existing.length > 0 && !existing.endsWith("\n")) prefix = "\n";
      }
    }
    appendNoFollow(path, `${prefix}${eventLine(event)}`);
    lines += 1;
    if (lines >= 2 * this.maxEvents) lines = this.compact(path);
    counts.set(streamKey, lines);
  }

  eventsAfter(sessionId: string, streamId: string, afterSeq: number): StoredEvent[] | undefined {
    const text = readIfExists(this.streamPath(fileKey(sessionId), fileKey(streamId)));
    if (text === undefined) return undefined;
    return parseEvents(text).filter((event) => event.seq > afterSeq);
  }

  forgetSession(sessionId: string): void {
    const sessionKey = fileKey(sessionId);
    this.lineCounts.delete(sessionKey);
    rmSync(this.sessionPath(sessionKey), { recursive: true, force: true });
  }

  /** Streams currently held for a session (for tests and metrics). */
  streamCount(sessionId: string): number {
    return this.streamFiles(fileKey(sessionId)).length;
  }

  private sessionPath(sessionKey: string): string {
    return join(this.directory, sessionKey);
  }

  private streamPath(sessionKey: string, streamKey: string): string {
    return join(this.directory, sessionKey, `${streamKey}${SUFFIX}`);
  }

  private countsFor(sessionKey: string): Map<string, number> {
    let counts = this.lineCounts.get(sessionKey);
    if (counts) {
      this.lineCounts.delete(sessionKey); // re-inserted below: least recently used goes first
    } else {
      counts = new Map();
    }
    this.lineCounts.set(sessionKey, counts);
    if (this.lineCounts.size > MAX_CACHED_SESSIONS) {
      this.lineCounts.delete(this.lineCounts.keys().next().value as string);
    }
    return counts;
  }

  private streamFiles(sessionKey: string): string[] {
    try {
      return readdirSync(this.sessionPath(sessionKey)).filter((name) => name.endsWith(SUFFIX));
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  }

  /** Deletes the least recently written streams until at most `keep` remain. */
  private dropOldStreams(sessionKey: string, keep: number): void {
    const names = this.streamFiles(sessionKey);
    if (names.length <= keep) return;
    const dated = names.map((name) => {
      const path = join(this.sessionPath(sessionKey), name);
      return { name, path, written: lstatSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0 };
    });
    dated.sort((a, b) => a.written - b.written);
    const counts = this.lineCounts.get(sessionKey);
    for (const { name, path } of dated.slice(0, dated.length - keep)) {
      unlinkSync(path);
      counts?.delete(name.slice(0, -SUFFIX.length));
    }
  }

  /** Rewrites a stream file with its newest `maxEvents` events; returns the lines left. */
  private compact(path: string): number {
    const kept = parseEvents(readIfExists(path) ?? "").slice(-this.maxEvents);
    writeFileAtomic(path, kept.map(eventLine).join(""));
    return kept.length;
  }
}

function eventLine(event: StoredEvent): string {
  return `${JSON.stringify({ seq: event.seq, id: event.id, message: event.message })}\n`;
}

function countLines(text: string): number {
  let lines = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines += 1;
  return lines;
}

/** The events of a stream file; a line torn by a crash (or otherwise unreadable) is skipped. */
function parseEvents(text: string): StoredEvent[] {
  const events: StoredEvent[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (
      isPlainObject(value) &&
      typeof value.seq === "number" &&
      typeof value.id === "string" &&
      isPlainObject(value.message)
    ) {
      events.push({
        seq: value.seq,
        id: value.id,
        message: value.message as unknown as JsonRpcMessage,
      });
    }
  }
  return events;
}
