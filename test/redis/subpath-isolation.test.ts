/**
 * Redis stays optional: the core (root, server, client, transports) loads neither node-redis nor
 * mcpwire/redis, and mcpwire/redis itself loads without node-redis installed (users pass their
 * own client), so `redis` can be an optional peer dependency.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { importWithTrap } from "../helpers/import-trap.js";

/** A resolver hook that refuses node-redis, and (when asked) the shipped mcpwire/redis entry. */
function trap(refuseOwnRedis: boolean): string {
  const own = refuseOwnRedis ? "|[\\\\/]dist[\\\\/]pkg[\\\\/]redis[\\\\/]" : "";
  return `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (/[\\\\/]node_modules[\\\\/](redis|@redis[\\\\/][^\\\\/]+)[\\\\/]${own}/.test(resolved.url)) {
    throw new Error("REDIS-LOADED " + resolved.url);
  }
  return resolved;
}`;
}

function importWithRedisTrap(specifiers: string[], refuseOwnRedis: boolean) {
  return importWithTrap(trap(refuseOwnRedis), specifiers);
}

describe("mcpwire/redis is the only way in for Redis", () => {
  it("the root, server, client and transports load neither node-redis nor mcpwire/redis", () => {
    const run = importWithRedisTrap(
      ["mcpwire", "mcpwire/server", "mcpwire/client", "mcpwire/transports/http"],
      true,
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, "imported");
  });

  it("mcpwire/redis loads without node-redis (the client is the user's)", () => {
    const run = importWithRedisTrap(["mcpwire/redis"], false);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, "imported");
  });

  it("the trap works: importing node-redis is refused, and so is mcpwire/redis when asked", () => {
    const redis = importWithRedisTrap(["redis"], false);
    assert.notEqual(redis.status, 0);
    assert.match(redis.stderr, /REDIS-LOADED .*node_modules\/redis\//);
    const own = importWithRedisTrap(["mcpwire/redis"], true);
    assert.notEqual(own.status, 0);
    assert.match(own.stderr, /REDIS-LOADED .*dist\/pkg\/redis\//);
  });
});
