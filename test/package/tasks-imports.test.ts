/**
 * Tasks are an extension (issue 27): no core file may import tasks code. Core is src/server,
 * src/client, src/protocol, src/jsonrpc and src/transports; tasks code is what lives in a tasks
 * folder (src/server/tasks/, src/client/tasks/). Tasks code may import core and itself; only the
 * entry points (src/server/index.ts, src/client/index.ts) compose the two, installing the
 * extension on the McpServer and McpClient they export.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../../src");
const IMPORT = /(?:(?:import|export)\s[^;]*?from\s+|import\(\s*)"(\.[^"]+)"/g;
const CORE = ["server", "client", "protocol", "jsonrpc", "transports"];
const ENTRIES = new Set(["server/index.ts", "client/index.ts"]);

/** A path relative to src/ that is tasks code. */
function isTasksCode(path: string): boolean {
  return /(^|\/)tasks\//.test(path);
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
      "server/tasks/extension.ts",
      "client/tasks/legacy.ts",
      "client/tasks/extension.ts",
    ]) {
      assert.ok(isTasksCode(path), path);
    }
    for (const path of [
      "server/tool-registry.ts",
      "client/connection.ts",
      "server/task.ts",
      "client/tasks.ts",
    ]) {
      assert.ok(!isTasksCode(path), path);
    }
  });

  it("lets no core file import tasks code", () => {
    assert.deepEqual([...coreTasksImports(SRC)], []);
  });

  it("sees an import of tasks code from a core file", () => {
    const src = mkdtempSync(join(tmpdir(), "tasks-imports-"));
    try {
      mkdirSync(join(src, "server", "tasks"), { recursive: true });
      writeFileSync(join(src, "server", "tasks", "manager.ts"), "export const x = 1;\n");
      writeFileSync(
        join(src, "server", "tool-registry.ts"),
        'import type { x } from "./tasks/manager.js";\n',
      );
      for (const folder of CORE.slice(1)) mkdirSync(join(src, folder));
      assert.deepEqual(
        [...coreTasksImports(src)],
        [["server/tool-registry.ts", ["server/tasks/manager.ts"]]],
      );
    } finally {
      rmSync(src, { recursive: true, force: true });
    }
  });
});
