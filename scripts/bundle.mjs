#!/usr/bin/env node
/**
 * The second half of `npm run build`: bundles tsc's output (dist/src) into what the package
 * ships and its "exports" point at (dist/pkg), one file per public entry plus shared chunks.
 *
 * Why: Node pays for every ES module it loads (resolve, read, compile, link), about half a
 * millisecond each, and a stdio server built on the unbundled tree loads dozens of them before
 * it can answer. Bundled, `mcpwire/server` is three files. All entries are bundled in one pass,
 * so a class shared by two subpaths (an error, McpServer) is one class and `instanceof` holds
 * across them. Types stay tsc's declarations (dist/src/**\/*.d.ts).
 *
 * Chunks: what the protocol core reaches goes into `shared-core`, then what `mcpwire/server`
 * reaches besides into `shared-server`, then `shared-client` likewise; rollup splits the rest
 * (HTTP, auth, redis, the CLI) as their entries share it. So a stdio server never parses
 * client, HTTP or auth code.
 *
 * A second pass writes the web build (dist/pkg/web), what the `workerd`, `worker` and `browser`
 * export conditions pick for the entries that run there: the same modules, except that where
 * `x.web.js` sits beside `x.js`, the web file replaces it (the JSON Schema engine without code
 * generation, Node-only helpers that say so when called). The two builds never mix: a runtime
 * takes every entry from one of them, so classes stay single there too.
 */
import { chmodSync, existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { rollup } from "rollup";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const FROM = join(ROOT, "dist", "src");
const TO = join(ROOT, "dist", "pkg");

const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

/** Entry name (path under dist/pkg, no extension) → tsc's output file, for each export and the bin. */
function entries() {
  const input = {};
  const add = (shipped) => {
    const name = relative(TO, join(ROOT, shipped)).replace(/\.js$/, "");
    input[name] = join(FROM, `${name}.js`);
  };
  for (const target of Object.values(manifest.exports)) add(target.default);
  for (const bin of Object.values(manifest.bin)) add(bin);
  return input;
}

/** The web build's entries: the exports whose `workerd` condition points into dist/pkg/web. */
function webEntries() {
  const input = {};
  for (const target of Object.values(manifest.exports)) {
    if (target.workerd === undefined) continue;
    const name = relative(join(TO, "web"), join(ROOT, target.workerd)).replace(/\.js$/, "");
    input[name] = join(FROM, `${name}.js`);
  }
  return input;
}

/** Resolves a module of ours to its `.web.js` sibling where there is one (the web build). */
const webSiblings = {
  name: "web-siblings",
  async resolveId(source, importer, options) {
    const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
    if (!resolved || resolved.external || !resolved.id.startsWith(FROM)) return resolved;
    const web = resolved.id.replace(/\.js$/, ".web.js");
    return existsSync(web) ? { ...resolved, id: web } : resolved;
  },
};

/** Chunk groups in priority order: a module goes to the first group whose entries reach it. */
const GROUPS = [
  // The schema cache is core too: the server checks tool arguments with it, the client (given a
  // validator) structuredContent, and the client must not load the server's chunk for it.
  [
    "shared-core",
    ["jsonrpc/index.js", "protocol/index.js", "transports/ndjson.js", "schema/compiled-schemas.js"],
  ],
  ["shared-server", ["server/index.js"]],
  ["shared-client", ["client/index.js"]],
];

function groupOf() {
  let owner;
  return (id, { getModuleInfo }) => {
    if (!owner) {
      owner = new Map();
      for (const [group, starts] of GROUPS) {
        const queue = starts.map((start) => join(FROM, start));
        while (queue.length > 0) {
          const next = queue.pop();
          if (owner.has(next) || !next.startsWith(FROM)) continue;
          owner.set(next, group);
          queue.push(...(getModuleInfo(next)?.importedIds ?? []));
        }
      }
    }
    return owner.get(id);
  };
}

/** Reads tsc's source map beside each file, so the bundle's maps lead back to src/*.ts. */
const tscSourceMaps = {
  name: "tsc-source-maps",
  load(id) {
    if (!id.startsWith(FROM)) return null;
    const map = `${id}.map`;
    return {
      code: readFileSync(id, "utf8"),
      map: existsSync(map) ? readFileSync(map, "utf8") : null,
    };
  },
};

/**
 * Escapes every non-ASCII character (`\u2014` for an em dash) in the output. V8 reads a file
 * with any such character as a two-byte string and scans it slower; ours are only in strings,
 * regular expressions and comments, where the escape means the same. Column mappings after an
 * escape on the same line shift by a few characters (17 lines of `mcpwire/server`, all in
 * messages and comments).
 */
const asciiOnly = {
  name: "ascii-only",
  renderChunk(code) {
    const ascii = code.replace(
      /[\u0080-\uffff]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
    // map null: lines stay where they were, so the chunk's source map still holds.
    return { code: ascii, map: null };
  },
};

const external = (id) => !id.startsWith(".") && !id.startsWith("/");

rmSync(TO, { recursive: true, force: true });
const onwarn = (warning, warn) => {
  // tsc's output has import cycles between modules of one folder; they are fine in ESM.
  if (warning.code === "CIRCULAR_DEPENDENCY") return;
  warn(warning);
};
const bundle = await rollup({
  input: entries(),
  external,
  plugins: [tscSourceMaps, asciiOnly],
  onwarn,
});
await bundle.write({
  dir: TO,
  format: "es",
  entryFileNames: "[name].js",
  chunkFileNames: "chunks/[name]-[hash].js",
  manualChunks: groupOf(),
  sourcemap: true,
});
await bundle.close();
const web = await rollup({
  input: webEntries(),
  external,
  plugins: [webSiblings, tscSourceMaps, asciiOnly],
  onwarn,
});
await web.write({
  dir: join(TO, "web"),
  format: "es",
  entryFileNames: "[name].js",
  chunkFileNames: "chunks/[name]-[hash].js",
  sourcemap: true,
});
await web.close();
// rollup writes files without the executable bit; `npx mcpwire` in a checkout (and the package's
// bin on a system that keeps modes) runs the file itself, so give the bin its bit back.
for (const bin of Object.values(manifest.bin)) chmodSync(join(ROOT, bin), 0o755);
