/**
 * The file-backed legacy stores trust their directory only when nobody else can change it: a
 * missing one is made 0700, one that is group/world-writable, owned by another user or a
 * symbolic link is refused at construction, and no write (or read) ever goes through a
 * symbolic link planted where a store keeps its files.
 */
import assert from "node:assert/strict";
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FileEventStore } from "../../../src/transports/http/legacy/file-event-store.js";
import { FileSessionRecordStore } from "../../../src/transports/http/legacy/file-session-records.js";
import type { SessionRecord } from "../../../src/transports/http/legacy/session-records.js";
import { fileKey } from "../../../src/transports/http/legacy/store-files.js";

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A private scratch directory (0700, ours), for the store directories and their victims. */
function scratch(): string {
  const root = mkdtempSync(join(tmpdir(), "mcpwire-trust-"));
  roots.push(root);
  return root;
}

/** A file outside any store that a planted link points at; it must never change. */
function victim(root: string): string {
  const path = join(root, "victim.txt");
  writeFileSync(path, "precious\n");
  return path;
}

function record(id: string): SessionRecord {
  return {
    id,
    principal: null,
    state: {
      protocolVersion: "2025-11-25",
      clientCapabilities: {},
      initialized: true,
      subscriptions: [],
    },
    streams: [],
    lastUsed: Date.now(),
  };
}

const event = {
  id: "s:1",
  seq: 1,
  message: { jsonrpc: "2.0" as const, method: "notifications/progress", params: {} },
};

const makers = {
  FileEventStore: (directory: string) => new FileEventStore({ directory }),
  FileSessionRecordStore: (directory: string) => new FileSessionRecordStore({ directory }),
};

describe("file stores and their directory", () => {
  for (const [name, make] of Object.entries(makers)) {
    it(`${name}: makes a missing directory 0700`, () => {
      const directory = join(scratch(), "made", "here");
      make(directory);
      assert.equal(statSync(directory).mode & 0o777, 0o700);
    });

    it(`${name}: refuses a world- or group-writable directory`, () => {
      for (const mode of [0o777, 0o770, 0o702]) {
        const directory = join(scratch(), "open");
        mkdirSync(directory);
        chmodSync(directory, mode);
        assert.throws(() => make(directory), /group or others may write to it/);
      }
    });

    it(`${name}: refuses a directory owned by another user`, () => {
      const directory = join(scratch(), "theirs");
      mkdirSync(directory, { mode: 0o700 });
      const other = (process.getuid?.() ?? 0) + 4242;
      chownSync(directory, other, other);
      assert.throws(() => make(directory), new RegExp(`owned by uid ${other}`));
    });

    it(`${name}: refuses a directory that is a symbolic link`, () => {
      const root = scratch();
      const real = join(root, "real");
      mkdirSync(real, { mode: 0o700 });
      symlinkSync(real, join(root, "link"));
      assert.throws(() => make(join(root, "link")), /symbolic link/);
    });
  }

  it("FileSessionRecordStore: a link planted at a record's path or its temporary name is never written through", () => {
    const root = scratch();
    const target = victim(root);
    const directory = join(root, "records");
    const store = new FileSessionRecordStore({ directory });
    const path = join(directory, `${fileKey("one")}.json`);
    symlinkSync(target, path);
    // The name the temporary file used to have (predictable from the pid).
    symlinkSync(target, `${path}.${process.pid}.tmp`);
    store.save(record("one"));
    assert.equal(readFileSync(target, "utf8"), "precious\n");
    // The record replaced the link (a rename does not follow it) and reads back.
    assert.ok(lstatSync(path).isFile());
    assert.equal(store.load("one")?.id, "one");
  });

  it("FileSessionRecordStore: a link in place of a record is not read through", () => {
    const root = scratch();
    const directory = join(root, "records");
    const store = new FileSessionRecordStore({ directory });
    const elsewhere = join(root, "elsewhere.json");
    writeFileSync(elsewhere, JSON.stringify(record("two")));
    symlinkSync(elsewhere, join(directory, `${fileKey("two")}.json`));
    assert.throws(() => store.load("two"), /symbolic link/);
  });

  it("FileEventStore: a link planted at a stream file is never appended through", () => {
    const root = scratch();
    const target = victim(root);
    const directory = join(root, "events");
    const store = new FileEventStore({ directory });
    const sessionDirectory = join(directory, fileKey("session"));
    mkdirSync(sessionDirectory, { mode: 0o700 });
    symlinkSync(target, join(sessionDirectory, `${fileKey("s")}.ndjson`));
    assert.throws(() => store.append("session", "s", event), /symbolic link/);
    assert.equal(readFileSync(target, "utf8"), "precious\n");
  });

  it("FileEventStore: a link planted as a session's directory is not written into", () => {
    const root = scratch();
    const outside = join(root, "outside");
    mkdirSync(outside, { mode: 0o700 });
    const directory = join(root, "events");
    const store = new FileEventStore({ directory });
    symlinkSync(outside, join(directory, fileKey("session")));
    assert.throws(() => store.append("session", "s", event), /symbolic link/);
    assert.deepEqual(readdirSync(outside), []);
  });
});
