/**
 * `mcpwire --version`, `--help` and a usage error must not load what the verbs need (HTTP,
 * auth, the server, the client): each verb is imported on demand. A module hook writes every
 * module a run loads to a file; for the bundle, each chunk's source map says which src/ files
 * went into it.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const DIST = join(REPO, "dist");
const TRACE = new URL("./import-trace.js", import.meta.url).href;
const TSC_BIN = join(DIST, "src", "cli", "main.js");
const BUNDLED_BIN = join(DIST, "pkg", "cli", "main.js");

/** What only a verb may load: other layers' HTTP, auth, server and client code, any verb folder. */
const VERB_ONLY =
  /^(node_modules\/|src\/(auth|server|client|redis|transports\/http|transports\/stdio|gateway|middleware|otel)\/|src\/cli\/(verbs|gateway|shell|tap|auth)\/|src\/cli\/connect\/(session|target|http-auth)\.ts$)/;

const scratch = mkdtempSync(join(tmpdir(), "mcpwire-import-trace-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let runs = 0;

interface TracedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The files each loaded module came from, relative to the checkout (src/… or node_modules/…). */
  sources: string[];
}

/** The src/ files behind one loaded file: tsc's output maps one to one, a chunk by its map. */
function sourcesOf(file: string): string[] {
  if (!file.startsWith(DIST)) return [relative(REPO, file)];
  if (file.startsWith(join(DIST, "src"))) return [relative(DIST, file).replace(/\.js$/, ".ts")];
  const map = JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] };
  return map.sources.map((source) => relative(REPO, resolve(dirname(file), source)));
}

function traced(bin: string, args: string[]): Promise<TracedRun> {
  const traceFile = join(scratch, `trace-${++runs}.txt`);
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      ["--import", TRACE, bin, ...args],
      { env: { ...process.env, MCPWIRE_IMPORT_TRACE: traceFile } },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") return fail(error);
        const loaded = readFileSync(traceFile, "utf8")
          .split("\n")
          .filter((url) => url.startsWith("file:"))
          .map((url) => fileURLToPath(url))
          .filter((file) => file !== fileURLToPath(TRACE));
        const sources = [...new Set(loaded.flatMap(sourcesOf))].sort();
        done({ code: error ? (error.code as number) : 0, stdout, stderr, sources });
      },
    );
  });
}

const verbOnly = (run: TracedRun) => run.sources.filter((source) => VERB_ONLY.test(source));

const version = (
  JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }
).version;

for (const [name, bin] of [
  ["tsc's output", TSC_BIN],
  ["the bundled bin", BUNDLED_BIN],
] as const) {
  describe(`mcpwire loads a verb only when it runs it (${name})`, () => {
    it("--version loads no HTTP, auth, server, client or verb module", async () => {
      const run = await traced(bin, ["--version"]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `${version}\n`);
      assert.ok(run.sources.includes("src/cli/run.ts"), run.sources.join("\n"));
      assert.deepEqual(verbOnly(run), []);
    });

    it("--help and a usage error load none either", async () => {
      const help = await traced(bin, ["--help"]);
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, /--client-id <id>/, "the authorization options are in it");
      assert.deepEqual(verbOnly(help), []);
      const unknown = await traced(bin, ["frobnicate"]);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /^mcpwire: unknown command "frobnicate"/);
      assert.deepEqual(verbOnly(unknown), []);
    });

    it("a verb's own --help loads that verb (the trace sees modules loaded on demand)", async () => {
      const run = await traced(bin, ["discover", "--help"]);
      assert.equal(run.code, 0, run.stderr);
      assert.ok(run.sources.includes("src/cli/verbs/discover.ts"), run.sources.join("\n"));
      assert.ok(!run.sources.includes("src/cli/gateway/gateway.ts"), "only that verb");
    });
  });
}
