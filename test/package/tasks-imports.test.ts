/**
 * Tasks are an extension (issue 27): no core file may import tasks code. Core is src/server,
 * src/client, src/protocol, src/jsonrpc and src/transports; tasks code is a module whose path
 * names tasks (src/server/tasks/, src/client/tasks.ts, legacy-tasks.ts, task-status.ts, and
 * src/extensions/tasks/ once it exists). Files that are tasks code themselves may import each
 * other; the entry points (src/server/index.ts, src/client/index.ts) may compose.
 *
 * The move is under way, so STILL_COUPLED names the core files that import tasks today. The list
 * only shrinks: a file not on it that imports tasks fails, and so does a listed file that no
 * longer does (take it off). When the list is empty the rule holds outright.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../../src");
const IMPORT = /(?:(?:import|export)\s[^;]*?from\s+|import\(\s*)"(\.[^"]+)"/g;
const CORE = ["server", "client", "protocol", "jsonrpc", "transports"];
const ENTRIES = new Set(["server/index.ts", "client/index.ts"]);

/** Core files that import tasks today; each comes off as the move reaches it (issue 27). */
const STILL_COUPLED = ["client/connection.ts"];

/** A path relative to src/ that is tasks code. */
function isTasksCode(path: string): boolean {
  return (
    /(^|\/)tasks\//.test(path) ||
    /(^|\/)(tasks|legacy-tasks|task-status)\.ts$/.test(path) ||
    path.startsWith("extensions/tasks/")
  );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Core file (relative to src/) -> the tasks modules it imports. */
function coreTasksImports(src: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const folder of CORE) {
    for (const file of sourceFiles(join(src, folder))) {
      const from = relative(src, file).replaceAll("\\", "/");
      if (isTasksCode(from) || ENTRIES.has(from)) continue;
      const targets = [...readFileSync(file, "utf8").matchAll(IMPORT)]
        .map((m) => relative(src, resolve(dirname(file), (m[1] ?? "").replace(/\.js$/, ".ts"))))
        .map((p) => p.replaceAll("\\", "/"))
        .filter(isTasksCode);
      if (targets.length > 0) found.set(from, targets);
    }
  }
  return found;
}

describe("core files and the tasks extension", () => {
  it("knows tasks code by its path", () => {
    for (const path of [
      "server/tasks/manager.ts",
      "client/tasks.ts",
      "client/legacy-tasks.ts",
      "client/task-status.ts",
      "extensions/tasks/index.ts",
    ]) {
      assert.ok(isTasksCode(path), path);
    }
    for (const path of ["server/tool-registry.ts", "client/connection.ts", "server/task.ts"]) {
      assert.ok(!isTasksCode(path), path);
    }
  });

  it("lets no core file import tasks beyond the shrinking list", () => {
    const found = coreTasksImports(SRC);
    const fresh = [...found.keys()].filter((f) => !STILL_COUPLED.includes(f));
    assert.deepEqual(fresh, [], `core files newly importing tasks: ${JSON.stringify([...found])}`);
    const freed = STILL_COUPLED.filter((f) => !found.has(f));
    assert.deepEqual(freed, [], "these no longer import tasks: take them off STILL_COUPLED");
  });
});
