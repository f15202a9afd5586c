/**
 * The public surface, entry by entry: every name each package.json "exports" entry offers, with
 * its kind, read from tsc's declarations and compared with test/package/api/<entry>.txt. A
 * change to what users can import is a diff in review; UPDATE_API_SNAPSHOT=1 rewrites the files
 * after `npx tsc -p tsconfig.json`.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { apiSurfaces } from "./api-surface.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const SNAPSHOTS = join(ROOT, "test", "package", "api");
const UPDATE = process.env.UPDATE_API_SNAPSHOT === "1";

const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  exports: Record<string, { types: string }>;
};

/** "." -> mcpwire.txt, "./transports/http" -> mcpwire-transports-http.txt */
function snapshotFile(entry: string): string {
  return join(SNAPSHOTS, `${`mcpwire${entry.slice(1)}`.replaceAll("/", "-")}.txt`);
}

describe("public API surface", () => {
  const entries = Object.entries(manifest.exports);
  const surfaces = apiSurfaces(entries.map(([, target]) => join(ROOT, target.types)));

  for (const [entry, target] of entries) {
    it(`mcpwire${entry.slice(1)} matches its snapshot`, () => {
      const listed = `${(surfaces.get(join(ROOT, target.types)) ?? []).join("\n")}\n`;
      const file = snapshotFile(entry);
      if (UPDATE) {
        mkdirSync(SNAPSHOTS, { recursive: true });
        writeFileSync(file, listed);
        return;
      }
      let expected: string;
      try {
        expected = readFileSync(file, "utf8");
      } catch {
        assert.fail(`no snapshot for ${entry}: run UPDATE_API_SNAPSHOT=1 node --test ${file}`);
      }
      assert.equal(
        listed,
        expected,
        `the surface of ${entry} changed; review, then UPDATE_API_SNAPSHOT=1`,
      );
    });
  }

  it("names each export and its kind", () => {
    const server = surfaces.get(join(ROOT, manifest.exports["./server"]?.types ?? "")) ?? [];
    assert.ok(server.includes("McpServer class"));
    assert.ok(server.includes("ToolHandler type"));
    assert.ok(!server.some((line) => line.startsWith("Features ")), "internals stay out");
  });

  it("lists every entry point with named exports only", () => {
    for (const [, target] of entries) {
      const source = join(ROOT, target.types.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, ".ts"));
      assert.doesNotMatch(readFileSync(source, "utf8"), /export \*|export type \*/, source);
    }
  });
});
