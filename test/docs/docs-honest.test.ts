/**
 * Keeps the documentation honest: every ```ts block in README.md and docs/*.md compiles (strict)
 * against the package as a user imports it (`mcpwire/...`, resolved through package.json
 * "exports" to the built declarations), every relative link and its #anchor resolves, and the
 * TypeDoc reference (`npm run docs`) builds from every subpath export without a warning.
 *
 * A block may be a fragment: it may use the few names of FRAGMENT_NAMES without declaring them
 * (a server, a client, an Express-like app...), as the prose around it explains.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const REPO = resolve(fileURLToPath(import.meta.url), "../../../..");

/** What a fragment may use undeclared. */
const FRAGMENT_NAMES = `
import type { McpClient } from "mcpwire/client";
import type { McpServer, ToolHandler } from "mcpwire/server";
declare global {
  /** An McpServer made earlier in the page. */
  const server: McpServer;
  /** A connected McpClient. */
  const client: McpClient;
  /** An Express, Hono or similar app. */
  const app: { all(path: string, handler: (...args: any[]) => unknown): void };
  /** A tool's input schema and handler, defined elsewhere. */
  const inputSchema: Record<string, unknown>;
  const writeFile: ToolHandler;
  /** Credentials from the reader's own setup. */
  const clientId: string;
  const clientSecret: string;
  const idToken: string;
}
export {};
`;

interface Block {
  file: string;
  line: number;
  code: string;
}

async function pages(): Promise<string[]> {
  const docs = (await readdir(join(REPO, "docs")))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join("docs", name));
  return ["README.md", ...docs.sort()];
}

function tsBlocks(file: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```ts\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]!); j++) {
      body.push(lines[j]!.slice(indent));
    }
    blocks.push({ file, line: i + 1, code: body.join("\n") });
    i = j;
  }
  return blocks;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    found.add(slug);
  }
  return found;
}

describe("documentation", () => {
  it("every ```ts block compiles against the package", async () => {
    const blocks: Block[] = [];
    for (const page of await pages()) {
      blocks.push(...tsBlocks(page, await readFile(join(REPO, page), "utf8")));
    }
    assert.ok(blocks.length >= 10, `only ${blocks.length} blocks found`);
    // Inside the package (dist/ is its own build output), so "mcpwire/..." resolves through
    // the package's own "exports", as in an app that installed it.
    const dir = await mkdtemp(join(REPO, "dist", "docs-snippets-"));
    try {
      const names: string[] = [];
      await writeFile(join(dir, "fragment-names.ts"), FRAGMENT_NAMES);
      for (const [index, block] of blocks.entries()) {
        const name = `${block.file.replace(/[^a-z0-9]+/gi, "-")}-${block.line}.ts`;
        names.push(name);
        // A module each, whatever it holds; top-level await is allowed as in an ES module app.
        await writeFile(join(dir, name), `${block.code}\nexport {};\n// block ${index}\n`);
      }
      await writeFile(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            module: "NodeNext",
            moduleResolution: "NodeNext",
            lib: ["ES2023", "DOM"],
            types: ["node"],
            typeRoots: [join(REPO, "node_modules/@types")],
            strict: true,
            noEmit: true,
            skipLibCheck: true,
          },
          files: ["fragment-names.ts", ...names],
        }),
      );
      const tsc = join(REPO, "node_modules/typescript/bin/tsc");
      const result = await run(process.execPath, [tsc, "-p", dir], { cwd: dir }).then(
        () => "",
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      // Name each error by page and line, not by the temporary file.
      const readable = result.replace(
        /([\w-]+)-(\d+)\.ts\((\d+),(\d+)\)/g,
        (_all, page, line, at) => `${page} block at line ${line} (+${Number(at) - 1})`,
      );
      assert.equal(readable, "", `the docs' TypeScript does not compile:\n${readable}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("every relative link and #anchor resolves", async () => {
    const broken: string[] = [];
    for (const page of await pages()) {
      const text = await readFile(join(REPO, page), "utf8");
      const withoutCode = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
      for (const match of withoutCode.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const file = path === "" ? join(REPO, page) : resolve(dirname(join(REPO, page)), path);
        if (!existsSync(file)) {
          broken.push(`${page}: ${target} (no ${relative(REPO, file)})`);
          continue;
        }
        if (anchor !== undefined && file.endsWith(".md")) {
          if (!anchors(readFileSync(file, "utf8")).has(anchor)) {
            broken.push(`${page}: ${target} (no heading for #${anchor})`);
          }
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  it("the API reference covers every subpath export and builds without a warning", async () => {
    const manifest = JSON.parse(await readFile(join(REPO, "package.json"), "utf8"));
    const config = JSON.parse(await readFile(join(REPO, "typedoc.json"), "utf8"));
    const exported = Object.values(manifest.exports as Record<string, { types: string }>);
    const sources = exported.map(({ types }) =>
      types.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, ".ts"),
    );
    assert.deepEqual([...config.entryPoints].sort(), sources.sort());
    assert.equal(manifest.scripts.docs, "typedoc");
    const typedoc = join(REPO, "node_modules/typedoc/bin/typedoc");
    // The build has type-checked the sources already; --emit none writes nothing.
    const outcome = await run(
      process.execPath,
      [typedoc, "--emit", "none", "--skipErrorChecking", "--treatWarningsAsErrors"],
      { cwd: REPO },
    ).then(
      () => "",
      (error: { stdout?: string; stderr?: string }) => `${error.stdout}${error.stderr}`,
    );
    assert.equal(outcome, "");
  });
});
