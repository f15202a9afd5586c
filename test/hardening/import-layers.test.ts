/**
 * The layers read bottom-up. Two rules over src/'s import graph:
 * - no module reaches itself through its imports;
 * - a folder imports only the folders its row in LAYERS names (the direction of DESIGN.md:
 *   jsonrpc -> protocol -> server and client -> transports' bindings -> cli, with the optional
 *   subpaths beside them, importing only downward).
 * Type-only imports count for both: a type is still knowledge of the other folder, and a type
 * shared by two layers belongs in the lower one (Transport and the MCP header rules live in
 * protocol/ for that reason). Dynamic `import()` counts too.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../../src");
const IMPORT = /(?:(?:import|export)\s[^;]*?from\s+|import\(\s*)"(\.[^"]+)"/g;

// platform/: bytes, hashing and other runtime differences (Node vs web builds), a leaf like text.
const BASE = ["text", "platform", "jsonrpc"];
// schema/: the JSON Schema engines (ajv, cfworker) and their seam, used by server and client.
const CORE = [...BASE, "protocol", "schema"];
const SIDES = [...CORE, "server", "client"];
const BINDINGS = [...SIDES, "transports"];

/**
 * Folder of src/ -> the folders it may import (besides itself). `text` (printable, throttled
 * logs) is a leaf every layer may use. A new folder needs its row here before it can land.
 */
const LAYERS: Record<string, readonly string[]> = {
  text: ["platform"],
  platform: [],
  jsonrpc: ["text", "platform"],
  protocol: BASE,
  schema: BASE,
  server: CORE,
  client: CORE,
  transports: SIDES,
  // Subpaths beside the core (mcpwire/auth, mcpwire/redis, ...): downward only, never each other.
  middleware: SIDES,
  otel: SIDES,
  extensions: SIDES,
  auth: BINDINGS,
  redis: BINDINGS,
  gateway: [...BINDINGS, "auth", "middleware"],
  cli: [...BINDINGS, "auth", "redis", "middleware", "otel", "extensions", "gateway"],
  // src/index.ts: the everything entry.
  ".": ["jsonrpc", "protocol", "schema", "server", "client", "transports"],
};

/**
 * Entry files that may re-export one module above their layer, and why. `mcpwire/server` offers
 * serveStdio so a stdio server loads one subpath: the stdio client half (spawning, process
 * trees) stays out of its cold start (bench: cold start).
 */
const ENTRY_REACH: Record<string, readonly string[]> = {
  "server/index.ts": ["transports/stdio/serve.ts"],
};

function folderOf(file: string): string {
  const path = relative(SRC, file).split(sep);
  return path.length === 1 ? "." : (path[0] as string);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, "utf8");
    const targets = [...text.matchAll(IMPORT)].map((match) =>
      resolve(dirname(file), (match[1] as string).replace(/\.js$/, ".ts")),
    );
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected components with more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(relative(SRC, member));
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** Every import that crosses folders against LAYERS, as "from -> to" lines. */
function wrongWay(graph: Map<string, string[]>): string[] {
  const wrong: string[] = [];
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    const allowed = LAYERS[from];
    if (allowed === undefined) {
      wrong.push(`${relative(SRC, file)}: folder "${from}" has no row in LAYERS`);
      continue;
    }
    for (const target of targets) {
      const to = folderOf(target);
      const reach = ENTRY_REACH[relative(SRC, file)] ?? [];
      if (to !== from && !allowed.includes(to) && !reach.includes(relative(SRC, target))) {
        wrong.push(
          `${relative(SRC, file)} -> ${relative(SRC, target)} (${from} may not import ${to})`,
        );
      }
    }
  }
  return wrong;
}

/**
 * Inside src/cli, folder by job -> the cli folders it may import: core/ (arguments, errors,
 * terminal) is the floor, connect/ reaches servers, the verbs use both, and the bigger jobs
 * (gateway, shell, tap, auth) may reuse a verb. Files at src/cli's root (the bin, run.ts, which
 * loads each verb on demand, start-demo) may import any.
 */
const CLI_LAYERS: Record<string, readonly string[]> = {
  core: [],
  connect: ["core"],
  verbs: ["core", "connect"],
  gateway: ["core", "connect"],
  shell: ["core", "connect", "verbs"],
  tap: ["core", "connect"],
  auth: ["core", "connect"],
};

function cliFolderOf(file: string): string | undefined {
  const path = relative(join(SRC, "cli"), file).split(sep);
  if (path[0] === "..") return undefined;
  return path.length === 1 ? "." : (path[0] as string);
}

/** Every import inside src/cli that crosses its folders against CLI_LAYERS. */
function wrongWayInCli(graph: Map<string, string[]>): string[] {
  const wrong: string[] = [];
  for (const [file, targets] of graph) {
    const from = cliFolderOf(file);
    if (from === undefined || from === ".") continue;
    const allowed = CLI_LAYERS[from];
    if (allowed === undefined) {
      wrong.push(`${relative(SRC, file)}: cli folder "${from}" has no row in CLI_LAYERS`);
      continue;
    }
    for (const target of targets) {
      const to = cliFolderOf(target);
      if (to === undefined || to === from || allowed.includes(to)) continue;
      wrong.push(
        `${relative(SRC, file)} -> ${relative(SRC, target)} (cli/${from} may not import cli/${to})`,
      );
    }
  }
  return wrong;
}

describe("import graph of src/", () => {
  it("has no cycles, type-only imports included", () => {
    const graph = importGraph();
    assert.ok(graph.size > 50, "the walk found the sources");
    assert.deepEqual(cycles(graph), []);
  });

  it("points only down the layers, type-only imports included", () => {
    assert.deepEqual(wrongWay(importGraph()), []);
  });

  it("inside src/cli, points only down its folders by job (core at the bottom)", () => {
    assert.deepEqual(wrongWayInCli(importGraph()), []);
    const core = join(SRC, "cli", "core", "x.ts");
    const wrong = wrongWayInCli(new Map([[core, [join(SRC, "cli", "verbs", "call.ts")]]]));
    assert.match(wrong[0] as string, /cli\/core may not import cli\/verbs/);
  });

  it("knows a wrong-way import when it sees one", () => {
    const server = join(SRC, "server", "x.ts");
    const wrong = wrongWay(new Map([[server, [join(SRC, "transports", "stdio", "server.ts")]]]));
    assert.equal(wrong.length, 1);
    assert.match(wrong[0] as string, /server may not import transports/);
  });
});
