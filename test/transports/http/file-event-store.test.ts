/**
 * FileEventStore: append-only NDJSON per stream that a new instance (a restarted process) reads
 * back, bounded per stream and per session, safe against hostile ids, tolerant of a torn line.
 */
import assert from "node:assert/strict";
import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, describe, it } from "node:test";
import type { StoredEvent } from "../../../src/transports/http/legacy/event-store.js";
import { FileEventStore } from "../../../src/transports/http/legacy/file-event-store.js";

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function newRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "mcpwire-events-"));
  roots.push(root);
  return root;
}

function event(streamId: string, seq: number): StoredEvent {
  return {
    id: `${streamId}:${seq}`,
    seq,
    message: { jsonrpc: "2.0", method: "notifications/progress", params: { progress: seq } },
  };
}

/** Every file under `root`, relative to it. */
function filesUnder(root: string, under = root): string[] {
  return readdirSync(under, { withFileTypes: true }).flatMap((entry) => {
    const path = join(under, entry.name);
    return entry.isDirectory() ? filesUnder(root, path) : [relative(root, path)];
  });
}

describe("FileEventStore", () => {
  it("keeps events in order and a new instance on the directory reads them back", () => {
    const directory = join(newRoot(), "events");
    const first = new FileEventStore({ directory });
    for (let seq = 1; seq <= 5; seq++)
      first.append("session-a", "stream-1", event("stream-1", seq));
    first.append("session-a", "stream-2", event("stream-2", 1));
    first.append("session-b", "stream-1", event("stream-1", 9));

    const second = new FileEventStore({ directory });
    assert.deepEqual(
      second.eventsAfter("session-a", "stream-1", 2)?.map((stored) => stored.seq),
      [3, 4, 5],
    );
    assert.deepEqual(second.eventsAfter("session-a", "stream-1", 0)?.[0], event("stream-1", 1));
    assert.deepEqual(second.eventsAfter("session-a", "stream-1", 5), []);
    // Another stream or another session is never mixed in.
    assert.deepEqual(
      second.eventsAfter("session-a", "stream-2", 0)?.map((stored) => stored.seq),
      [1],
    );
    assert.deepEqual(
      second.eventsAfter("session-b", "stream-1", 0)?.map((stored) => stored.seq),
      [9],
    );
    assert.equal(second.eventsAfter("session-a", "stream-3", 0), undefined);
    assert.equal(second.eventsAfter("session-c", "stream-1", 0), undefined);

    // Appending goes on where the file is.
    second.append("session-a", "stream-1", event("stream-1", 6));
    assert.deepEqual(
      first.eventsAfter("session-a", "stream-1", 4)?.map((stored) => stored.seq),
      [5, 6],
    );
  });

  it("is bounded per stream: at least the newest maxEventsPerStream, at most twice as many", () => {
    const directory = join(newRoot(), "events");
    const store = new FileEventStore({ directory, maxEventsPerStream: 3 });
    for (let seq = 1; seq <= 20; seq++) store.append("s", "t", event("t", seq));
    const kept = store.eventsAfter("s", "t", 0)?.map((stored) => stored.seq) ?? [];
    assert.ok(kept.length >= 3 && kept.length <= 6, `kept ${kept.length}`);
    assert.deepEqual(
      kept,
      Array.from({ length: kept.length }, (_, i) => 21 - kept.length + i),
    );
    const [file] = filesUnder(directory);
    const lines = readFileSync(join(directory, file!), "utf8").trim().split("\n");
    assert.equal(lines.length, kept.length);
  });

  it("is bounded per session: the least recently written stream goes", () => {
    const directory = join(newRoot(), "events");
    const store = new FileEventStore({ directory, maxStreamsPerSession: 2 });
    store.append("s", "old", event("old", 1));
    store.append("s", "newer", event("newer", 1));
    // File times decide; make the order unambiguous whatever the clock's resolution.
    const [first, second] = filesUnder(directory).map((file) => join(directory, file));
    const oldPath = readFileSync(first!, "utf8").includes('"old:1"') ? first! : second!;
    const newerPath = oldPath === first ? second! : first!;
    const now = Date.now() / 1000;
    utimesSync(oldPath, now - 20, now - 20);
    utimesSync(newerPath, now - 10, now - 10);
    store.append("s", "newest", event("newest", 1));
    assert.equal(store.streamCount("s"), 2);
    assert.equal(store.eventsAfter("s", "old", 0), undefined);
    assert.equal(store.eventsAfter("s", "newer", 0)?.length, 1);
    assert.equal(store.eventsAfter("s", "newest", 0)?.length, 1);
  });

  it("forgetSession deletes the session's files and nothing else", () => {
    const directory = join(newRoot(), "events");
    const store = new FileEventStore({ directory });
    store.append("gone", "t", event("t", 1));
    store.append("kept", "t", event("t", 1));
    store.forgetSession("gone");
    assert.equal(store.eventsAfter("gone", "t", 0), undefined);
    assert.equal(store.eventsAfter("kept", "t", 0)?.length, 1);
    assert.equal(filesUnder(directory).length, 1);
    store.forgetSession("never-there");
  });

  it("a line torn by a crash is skipped and does not swallow the next one", () => {
    const directory = join(newRoot(), "events");
    const before = new FileEventStore({ directory });
    before.append("s", "t", event("t", 1));
    const [file] = filesUnder(directory);
    appendFileSync(join(directory, file!), '{"seq":2,"id":"t:2","mess');
    const after = new FileEventStore({ directory });
    after.append("s", "t", event("t", 3));
    assert.deepEqual(
      after.eventsAfter("s", "t", 0)?.map((stored) => stored.seq),
      [1, 3],
    );
  });

  it("ids with path characters stay inside the directory, as opaque names", () => {
    const root = newRoot();
    const directory = join(root, "a", "events");
    const store = new FileEventStore({ directory });
    const hostile = ["../x", "../../x", "/etc/passwd", "..\\x", ".", "", "a/../../b"];
    for (const sessionId of hostile) {
      for (const streamId of hostile) store.append(sessionId, streamId, event("t", 1));
    }
    const files = filesUnder(root);
    assert.equal(files.length, hostile.length * hostile.length);
    for (const file of files) {
      assert.match(file, /^a\/events\/[0-9a-f]{32}\/[0-9a-f]{32}\.ndjson$/);
    }
    assert.equal(store.eventsAfter("../x", "../../x", 0)?.length, 1);
    store.forgetSession("../x");
    assert.equal(filesUnder(root).length, hostile.length * (hostile.length - 1));
  });
});
