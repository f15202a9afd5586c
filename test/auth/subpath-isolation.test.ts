/**
 * The OAuth dependencies load only through `mcpwire/auth`: a subprocess whose module resolver
 * refuses oauth4webapi and jose can still import the client, the server, the transports and the
 * package root, and cannot import mcpwire/auth (which proves the trap works).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { importWithTrap } from "../helpers/import-trap.js";

const TRAP = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (/[\\\\/]node_modules[\\\\/](oauth4webapi|jose)[\\\\/]/.test(resolved.url)) {
    throw new Error("OAUTH-DEPENDENCY-LOADED " + resolved.url);
  }
  return resolved;
}`;

function importWithOauthTrap(specifiers: string[]) {
  return importWithTrap(TRAP, specifiers);
}

describe("mcpwire/auth is the only way in for the OAuth dependencies", () => {
  it("client, server, transports and the root load neither oauth4webapi nor jose", () => {
    const run = importWithOauthTrap([
      "mcpwire",
      "mcpwire/client",
      "mcpwire/server",
      "mcpwire/transports/http",
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, "imported");
  });

  it("mcpwire/auth does load them (the trap works)", () => {
    const run = importWithOauthTrap(["mcpwire/auth"]);
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /OAUTH-DEPENDENCY-LOADED .*oauth4webapi/);
  });
});
