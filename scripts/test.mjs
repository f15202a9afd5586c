#!/usr/bin/env node
/**
 * `npm test`: everything the suite needs, then the suite.
 *
 *   1. the binaries tests run (redis-server, nginx, chromium), installed on Debian as root, else
 *      a one-line stop naming the command to run, before anything is built;
 *   2. the Node 22 binary the oidc-provider tests run on (fetched once on an older Node);
 *   3. build and lint;
 *   4. a Redis (REDIS_URL, else 127.0.0.1:6379, else a private one started for this run);
 *   5. every compiled test file (or the ones named: `npm test -- dist/test/x.test.js`), two at
 *      a time, with REDIS_URL pointing at that Redis; a private Redis is stopped afterwards.
 */
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureNode22 } from "./ensure-node22.mjs";
import { ensureBinaries, provideRedis } from "./test-services.mjs";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

function fail(line) {
  process.stderr.write(`npm test: ${line}\n`);
  process.exit(1);
}

function npmRun(script) {
  const run = spawnSync(NPM, ["run", "--silent", script], { cwd: ROOT, stdio: "inherit" });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

function testFiles(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...testFiles(path));
    else if (name.endsWith(".test.js")) found.push(path);
  }
  return found.sort();
}

const missing = ensureBinaries();
if (missing) fail(missing);
if (ensureNode22() !== 0) fail("could not fetch the Node 22 binary (npm run conformance:node)");
npmRun("build");
npmRun("lint");

let redis;
try {
  redis = await provideRedis();
} catch (error) {
  fail(error.message);
}

const named = process.argv.slice(2);
const files = named.length > 0 ? named : testFiles(join(ROOT, "dist", "test"));
const tests = spawn(process.execPath, ["--test", "--test-concurrency=2", ...files], {
  cwd: ROOT,
  stdio: "inherit",
  env: { ...process.env, REDIS_URL: redis.url },
});
// Ctrl-C reaches the test runner through the terminal: we only wait for it to finish, then
// stop the private Redis. A SIGTERM or SIGHUP sent to us alone is passed on.
process.on("SIGINT", () => {});
for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => tests.kill(signal));
const [code, signal] = await new Promise((resolve) =>
  tests.on("exit", (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
);
await redis.stop();
process.exit(code ?? (signal ? 1 : 0));
