/**
 * Session record stores (in memory, in files) and the writer that keeps one session's record
 * writes in order, with synchronous and asynchronous stores.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FileSessionRecordStore } from "../../../src/transports/http/legacy/file-session-records.js";
import {
  InMemorySessionRecordStore,
  principalKey,
  RecordWriter,
  type SessionRecord,
  type SessionRecordStore,
} from "../../../src/transports/http/legacy/session-records.js";

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function newRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "mcpwire-records-"));
  roots.push(root);
  return root;
}

function record(id: string, lastUsed = Date.now()): SessionRecord {
  return {
    id,
    principal: principalKey({ user: "ada" }) as string,
    state: {
      protocolVersion: "2025-11-25",
      clientCapabilities: { elicitation: {} },
      clientInfo: { name: "c", version: "1" },
      initialized: true,
      logLevel: "warning",
      subscriptions: ["mem://a"],
    },
    streams: [{ id: "standalone" }, { id: "s1", requestId: 7 }, { id: "s2", requestId: "x" }],
    lastUsed,
  };
}

describe("FileSessionRecordStore", () => {
  it("saves, loads (from a new instance too), replaces and deletes", () => {
    const directory = join(newRoot(), "sessions");
    const store = new FileSessionRecordStore({ directory });
    store.save(record("one"));
    const reopened = new FileSessionRecordStore({ directory });
    assert.deepEqual(reopened.load("one"), record("one", reopened.load("one")!.lastUsed));
    const changed = { ...record("one"), streams: [] };
    reopened.save(changed);
    assert.deepEqual(store.load("one")?.streams, []);
    assert.equal(store.load("two"), undefined);
    store.delete("one");
    store.delete("one");
    assert.equal(reopened.load("one"), undefined);
    // No temporary files are left behind by the atomic replacement.
    assert.deepEqual(readdirSync(directory), []);
  });

  it("removeIdle removes old records only and names them", () => {
    const directory = join(newRoot(), "sessions");
    const store = new FileSessionRecordStore({ directory });
    const now = Date.now();
    store.save(record("old", now - 60_000));
    store.save(record("fresh", now));
    assert.deepEqual(store.removeIdle(now - 30_000), ["old"]);
    assert.equal(store.load("old"), undefined);
    assert.ok(store.load("fresh"));
  });

  it("a file that is not a record reads as none", () => {
    const directory = join(newRoot(), "sessions");
    const store = new FileSessionRecordStore({ directory });
    store.save(record("one"));
    const [file] = readdirSync(directory);
    writeFileSync(join(directory, file!), '{"id":"one","lastUs');
    assert.equal(store.load("one"), undefined);
    writeFileSync(join(directory, file!), JSON.stringify({ id: "one", lastUsed: 1 }));
    assert.equal(store.load("one"), undefined);
  });

  it("ids with path characters stay inside the directory", () => {
    const root = newRoot();
    const directory = join(root, "a", "sessions");
    const store = new FileSessionRecordStore({ directory });
    for (const id of ["../x", "../../x", "/etc/passwd", "..\\x", "."]) {
      store.save(record(id));
      assert.equal(store.load(id)?.id, id);
    }
    assert.deepEqual(readdirSync(root), ["a"]);
    assert.deepEqual(readdirSync(join(root, "a")), ["sessions"]);
    for (const name of readdirSync(directory)) assert.match(name, /^[0-9a-f]{32}\.json$/);
  });
});

describe("InMemorySessionRecordStore", () => {
  it("keeps copies, not the caller's objects", () => {
    const store = new InMemorySessionRecordStore();
    const saved = record("one");
    store.save(saved);
    saved.streams.length = 0;
    const loaded = store.load("one")!;
    assert.equal(loaded.streams.length, 3);
    loaded.state.subscriptions.push("mem://b");
    assert.deepEqual(store.load("one")?.state.subscriptions, ["mem://a"]);
    assert.deepEqual(store.removeIdle(Date.now() + 1), ["one"]);
    assert.equal(store.size, 0);
  });
});

describe("RecordWriter", () => {
  it("writes at once to a synchronous store", () => {
    const store = new InMemorySessionRecordStore();
    const writer = new RecordWriter(store, (error) => assert.fail(error));
    writer.save(record("one"));
    assert.ok(store.load("one"), "saved before save() returned");
  });

  it("keeps an asynchronous store's writes in order, the delete last, and reports failures", async () => {
    const log: string[] = [];
    let fail = false;
    const slow: SessionRecordStore = {
      load: () => undefined,
      async save(saved) {
        // The first write is the slowest: order must come from the writer, not from timing.
        await new Promise((resolve) => setTimeout(resolve, saved.streams.length * 10));
        if (fail) throw new Error("disk full");
        log.push(`save ${saved.streams.length}`);
      },
      async delete(id) {
        log.push(`delete ${id}`);
      },
    };
    const errors: Error[] = [];
    const writer = new RecordWriter(slow, (error) => errors.push(error));
    writer.save(record("one"));
    writer.save({ ...record("one"), streams: [{ id: "a" }] });
    writer.save({ ...record("one"), streams: [] });
    await writer.delete("one");
    writer.save(record("one")); // after delete: ignored, so nothing brings the record back
    await writer.settled();
    assert.deepEqual(log, ["save 3", "save 1", "save 0", "delete one"]);
    assert.equal(errors.length, 0);

    fail = true;
    const failing = new RecordWriter(slow, (error) => errors.push(error));
    failing.save(record("two"));
    await failing.settled();
    assert.equal(errors[0]?.message, "disk full");
  });
});
