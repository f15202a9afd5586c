/**
 * The CLI's file token store: two processes writing at once lose nothing, the file is 0600 in a
 * 0700 directory, a corrupt file is a clear TokenStoreError, a dead process's lock is taken over,
 * and the default location follows MCPWIRE_HOME / XDG_CONFIG_HOME.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { homedir, hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  defaultTokenFile,
  FileTokenStore,
  TokenStoreError,
} from "../../src/auth/file-token-store.js";

const WRITER = new URL("./token-store-writer.js", import.meta.url).pathname;
const tokens = (accessToken: string) => ({
  accessToken,
  tokenType: "Bearer",
  issuer: "https://as.example",
});

function writer(file: string, name: string, count: number): Promise<number | null> {
  const child = spawn(process.execPath, [WRITER, file, name, String(count)], { stdio: "inherit" });
  return new Promise((resolve) => child.once("exit", resolve));
}

describe("FileTokenStore", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcpwire-store-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps every entry of two processes writing at the same time", async () => {
    const file = join(dir, "two", "tokens.json");
    const count = 40;
    const codes = await Promise.all([writer(file, "alpha", count), writer(file, "beta", count)]);
    assert.deepEqual(codes, [0, 0]);
    const store = new FileTokenStore(file);
    for (const name of ["alpha", "beta"]) {
      for (let i = 0; i < count; i++) {
        const entry = await store.getTokens(`https://${name}.example/mcp/${i}`);
        assert.equal(entry?.accessToken, `${name}-${i}`, `${name} ${i}`);
      }
      const last = await store.getTokens(`https://${name}.example/mcp`);
      assert.equal(last?.accessToken, `${name}-${count - 1}`);
      assert.equal((await store.getClient(`https://${name}.example`))?.clientId, `${name}-39`);
    }
    assert.equal((await store.resources()).length, 2 * count + 2);
    // No lock or temporary file is left behind.
    const leftovers = (await import("node:fs")).readdirSync(join(dir, "two"));
    assert.deepEqual(leftovers, ["tokens.json"]);
  });

  it("writes the file 0600 in a directory it creates 0700", async () => {
    const file = join(dir, "modes", "nested", "tokens.json");
    const store = new FileTokenStore(file);
    await store.setTokens("https://a.example/mcp", tokens("secret-a"));
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.equal((await stat(join(dir, "modes", "nested"))).mode & 0o777, 0o700);
    // A replaced file is 0600 too, whatever the old one was.
    await writeFile(file, await readFile(file), { mode: 0o644 });
    await store.deleteTokens("https://a.example/mcp");
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.equal(await store.getTokens("https://a.example/mcp"), undefined);
  });

  it("reports a corrupt or foreign file as a TokenStoreError naming it", async () => {
    const file = join(dir, "corrupt.json");
    const store = new FileTokenStore(file);
    const unknownSource = '{"version":1,"tokens":{},"clients":{"x":{"clientId":"c","source":"?"}}}';
    for (const content of [
      "{not json",
      "[]",
      unknownSource,
      '{"version":2,"tokens":{},"clients":{}}',
    ]) {
      await writeFile(file, content);
      await assert.rejects(store.getTokens("https://a.example/mcp"), (error: unknown) => {
        assert.ok(error instanceof TokenStoreError);
        assert.ok(error.message.includes(file));
        return true;
      });
      await assert.rejects(store.setTokens("https://a.example/mcp", tokens("x")), TokenStoreError);
    }
    // The file is left as it was (nothing overwritten), and clear() removes it.
    assert.equal(await readFile(file, "utf8"), '{"version":2,"tokens":{},"clients":{}}');
    await store.clear();
    assert.equal(await store.getTokens("https://a.example/mcp"), undefined);
  });

  it("deletes tokens only while they are the ones a process holds", async () => {
    const store = new FileTokenStore(join(dir, "compare.json"));
    await store.setTokens("https://a.example/mcp", tokens("renewed-by-another"));
    await store.deleteTokensIf("https://a.example/mcp", "the-spent-one");
    assert.equal(
      (await store.getTokens("https://a.example/mcp"))?.accessToken,
      "renewed-by-another",
    );
    await store.deleteTokensIf("https://a.example/mcp", "renewed-by-another");
    assert.equal(await store.getTokens("https://a.example/mcp"), undefined);
  });

  it("runs exclusive sections one at a time, with the file still writable inside", async () => {
    const store = new FileTokenStore(join(dir, "exclusive.json"));
    const order: string[] = [];
    await Promise.all(
      ["a", "b", "c"].map((name) =>
        store.exclusive(async () => {
          order.push(`${name}+`);
          await store.setTokens(`https://${name}.example/mcp`, tokens(name));
          await new Promise((resolve) => setTimeout(resolve, 20));
          order.push(`${name}-`);
        }),
      ),
    );
    for (let i = 0; i < order.length; i += 2) {
      assert.equal(order[i]!.slice(0, 1), order[i + 1]!.slice(0, 1), order.join(" "));
    }
    assert.equal((await store.resources()).length, 3);
  });

  it("refuses a symbolic link for the file and a directory others may write to", async () => {
    const linked = join(dir, "linked");
    await mkdir(linked, { mode: 0o700 });
    await writeFile(join(dir, "elsewhere.json"), '{"version":1,"tokens":{},"clients":{}}');
    await symlink(join(dir, "elsewhere.json"), join(linked, "tokens.json"));
    const store = new FileTokenStore(join(linked, "tokens.json"));
    await assert.rejects(store.getTokens("https://a.example/mcp"), /symbolic link/);
    const open = join(dir, "open");
    await mkdir(open);
    await chmod(open, 0o777);
    await assert.rejects(
      new FileTokenStore(join(open, "tokens.json")).setTokens("https://a.example/mcp", tokens("x")),
      (error: unknown) =>
        error instanceof TokenStoreError && /others may write/.test(error.message),
    );
  });

  it("does not read inherited properties as entries", async () => {
    const store = new FileTokenStore(join(dir, "proto.json"));
    assert.equal(await store.getTokens("__proto__"), undefined);
    assert.equal(await store.getClient("constructor"), undefined);
  });

  it("takes over the lock of a process that is gone", async () => {
    const file = join(dir, "stale.json");
    // A pid that cannot be running: the child has exited.
    const child = spawn(process.execPath, ["-e", ""]);
    const pid = child.pid;
    await new Promise((resolve) => child.once("exit", resolve));
    await writeFile(`${file}.lock`, `${pid} ${hostname()}`);
    const store = new FileTokenStore(file);
    await store.setTokens("https://a.example/mcp", tokens("after-stale"));
    assert.equal((await store.getTokens("https://a.example/mcp"))?.accessToken, "after-stale");
  });

  it("lives in MCPWIRE_HOME, else XDG_CONFIG_HOME/mcpwire, else ~/.config/mcpwire", () => {
    assert.equal(defaultTokenFile({ MCPWIRE_HOME: "/m", XDG_CONFIG_HOME: "/x" }), "/m/tokens.json");
    assert.equal(defaultTokenFile({ XDG_CONFIG_HOME: "/x" }), "/x/mcpwire/tokens.json");
    assert.equal(defaultTokenFile({}), join(homedir(), ".config", "mcpwire", "tokens.json"));
  });
});
