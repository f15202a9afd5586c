/**
 * The OAuth dependencies load only through `mcpwire/auth`: a subprocess whose module resolver
 * refuses oauth4webapi and jose can still import the client, the server, the transports and the
 * package root, and cannot import mcpwire/auth (which proves the trap works).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const TRAP = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (/[\\\\/]node_modules[\\\\/](oauth4webapi|jose)[\\\\/]/.test(resolved.url)) {
    throw new Error("OAUTH-DEPENDENCY-LOADED " + resolved.url);
  }
  return resolved;
}`;

function importWithTrap(specifiers: string[]) {
  const code = [
    'import { register } from "node:module";',
    `register("data:text/javascript," + encodeURIComponent(${JSON.stringify(TRAP)}));`,
    ...specifiers.map((s) => `await import(${JSON.stringify(s)});`),
    'process.stdout.write("imported");',
  ].join("\n");
  return spawnSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("mcpwire/auth is the only way in for the OAuth dependencies", () => {
  it("client, server, transports and the root load neither oauth4webapi nor jose", () => {
    const run = importWithTrap([
      "mcpwire",
      "mcpwire/client",
      "mcpwire/server",
      "mcpwire/transports/http",
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, "imported");
  });

  it("mcpwire/auth does load them (the trap works)", () => {
    const run = importWithTrap(["mcpwire/auth"]);
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /OAUTH-DEPENDENCY-LOADED .*oauth4webapi/);
  });
});
