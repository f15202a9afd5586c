/**
 * The everything example's --redis: with no Redis at the URL it does not start half a cluster
 * member; it exits 2 at once, saying which URL failed and why.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort } from "../helpers/free-port.js";

const SERVER = fileURLToPath(new URL("../../examples/everything-server.js", import.meta.url));

describe("everything-server --redis", () => {
  it("exits 2 with the reason when Redis is not there", async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const child = spawn(process.execPath, [SERVER, "--http", "--port", "0", "--redis", url], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const code = await new Promise((resolve) => child.once("exit", resolve));
    assert.equal(code, 2, stderr);
    assert.equal(stdout, "", "it never said it was listening");
    assert.equal(stderr, `--redis ${url}: connect ECONNREFUSED ${url.slice("redis://".length)}\n`);
  });
});
