/**
 * assertionFromFile reads only what can be a workload's JWT: a regular file, within a size cap
 * and a time limit, holding a JWT. Devices, FIFOs and files such as /proc/self/environ are
 * refused before anything is sent anywhere.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { assertionFromFile } from "../../src/auth/index.js";

const JWT = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ3b3JrbG9hZCJ9.c2lnbmF0dXJl";

describe("assertionFromFile", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcpwire-assertion-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("reads a JWT from a regular file (through a symbolic link too, as Kubernetes mounts them)", async () => {
    const file = join(dir, "token");
    await writeFile(file, `${JWT}\n`);
    await symlink(file, join(dir, "link"));
    assert.equal(await assertionFromFile(file)(), JWT);
    assert.equal(await assertionFromFile(join(dir, "link"))(), JWT);
  });

  it("refuses a device that never ends (/dev/zero) without reading it", async () => {
    await assert.rejects(assertionFromFile("/dev/zero")(), /not a regular file/);
  });

  it("refuses a FIFO at once instead of waiting for a writer", { timeout: 10_000 }, async () => {
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    await assert.rejects(assertionFromFile(fifo)(), /not a regular file/);
  });

  it("refuses /proc/self/environ (a regular file whose stat says 0 bytes) as not a JWT", async () => {
    await assert.rejects(assertionFromFile("/proc/self/environ")(), /does not hold a JWT/);
  });

  it("refuses a file bigger than the cap, and reads no further", async () => {
    const file = join(dir, "big");
    await writeFile(file, "a".repeat(70 * 1024));
    await assert.rejects(assertionFromFile(file)(), /too big/);
    await writeFile(file, JWT);
    await assert.rejects(assertionFromFile(file, { maxBytes: 16 })(), /too big/);
  });

  it("reports a missing file with the system's reason", async () => {
    await assert.rejects(assertionFromFile(join(dir, "missing"))(), /ENOENT/);
  });
});
