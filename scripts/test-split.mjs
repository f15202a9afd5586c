/**
 * `npm test` in two halves that run at once (scripts/test.mjs):
 *
 * - unit: tests that run in the test process itself (memory pairs, HTTP on 127.0.0.1 inside
 *   the process, the CLI through run()); quick, and nothing to set up;
 * - e2e: tests that start processes or need a service: subprocesses (the CLI's bin, stdio
 *   servers, Bun, Deno, workerd, Chromium), Redis, nginx, the conformance suite.
 *
 * A compiled test file is e2e when it, or a module under dist/test it imports (transitively),
 * names one of those (`node:child_process`, the stdio client transports, redis, nginx, …):
 * read from the code, so a new test lands in the right half without a list to keep.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";

const OUTSIDE =
  /node:child_process|StdioClientTransport|SupervisedStdioTransport|redis|nginx|chromium|workerd|miniflare|conformance/i;
const LOCAL_IMPORT = /from\s+"(\.[^"]+)"|import\("(\.[^"]+)"\)/g;

/** Every compiled test file under `dir`, sorted. */
export function testFiles(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...testFiles(path));
    else if (name.endsWith(".test.js")) found.push(path);
  }
  return found.sort();
}

/** Comments name things freely; only code counts. */
function code(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

/** Does `file`, or a test module it imports, reach outside the test process? */
function reachesOutside(file, testRoot, seen) {
  if (seen.has(file)) return false;
  seen.add(file);
  let text;
  try {
    text = code(readFileSync(file, "utf8"));
  } catch {
    return false;
  }
  if (OUTSIDE.test(text)) return true;
  for (const match of text.matchAll(LOCAL_IMPORT)) {
    const imported = resolve(dirname(file), match[1] ?? match[2]);
    if (imported.startsWith(testRoot + sep) && reachesOutside(imported, testRoot, seen)) {
      return true;
    }
  }
  return false;
}

/** The files of `dist/test` (at `testRoot`) split into the unit and the e2e half. */
export function splitTests(testRoot) {
  const unit = [];
  const e2e = [];
  for (const file of testFiles(testRoot)) {
    (reachesOutside(file, testRoot, new Set()) ? e2e : unit).push(file);
  }
  return { unit, e2e };
}
