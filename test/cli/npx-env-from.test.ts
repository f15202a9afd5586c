/**
 * The command as users start it, `npx mcpwire …` in a checkout (the bundled bin, so these need
 * `npm run build`), and Node's own `--env-file`: Node reads it anywhere on the command line, in
 * npx's process and in ours, so a stdio server's variables come with `--env-from` instead.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO, runNpx } from "./run-cli.js";

const ENV_SERVER = new URL("../fixtures/cli-env-server.js", import.meta.url).pathname;
const server = ["--", process.execPath, ENV_SERVER];
const dir = mkdtempSync(join(tmpdir(), "mcpwire-npx-"));
const getenv = (name: string) => ["call", "getenv", JSON.stringify({ name })];

describe("npx mcpwire and --env-from", () => {
  it("the build leaves the bin executable (npx runs the file itself)", () => {
    const manifest = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
      bin: Record<string, string>;
    };
    for (const bin of Object.values(manifest.bin)) {
      const mode = statSync(join(REPO, bin)).mode;
      assert.equal(mode & 0o111, 0o111, `${bin} has mode ${(mode & 0o777).toString(8)}`);
    }
  });

  it("--env-from values reach only the server: a NODE_OPTIONS line runs nothing in npx or mcpwire", async () => {
    const marks = join(dir, "marks.txt");
    const marker = join(dir, "mark.cjs");
    writeFileSync(marks, "");
    // Wherever NODE_OPTIONS takes effect, this names the script of the process it ran in.
    writeFileSync(
      marker,
      `require("node:fs").appendFileSync(${JSON.stringify(marks)}, process.argv[1] + "\\n");\n`,
    );
    const file = join(dir, "server.env");
    writeFileSync(file, `NODE_OPTIONS="--require ${marker}"\nFROM_FILE=file-value\n`);
    const run = await runNpx([...getenv("FROM_FILE"), "--env-from", file, ...server]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "file-value\n");
    const ranIn = readFileSync(marks, "utf8").trim().split("\n");
    // The server got NODE_OPTIONS (it asked for it); npx and mcpwire did not.
    assert.deepEqual([...new Set(ranIn)], [ENV_SERVER]);
  });

  it("a missing --env-from file is mcpwire's usage error (exit 2), not Node's exit 9", async () => {
    const missing = join(dir, "missing.env");
    const run = await runNpx([...getenv("A"), "--env-from", missing, ...server]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^mcpwire: --env-from: cannot read \S+missing\.env \(ENOENT\)$/m);
  });

  it("--env-file (Node's option) is refused with a pointer to --env-from", async () => {
    const file = join(dir, "plain.env");
    writeFileSync(file, "A=1\n");
    for (const spelling of [["--env-file", file], [`--env-file=${file}`]]) {
      const run = await runNpx([...getenv("A"), ...spelling, ...server]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(
        run.stderr,
        /^mcpwire: --env-file is Node's own option .*: give a stdio server's variables with --env-from <file>$/m,
      );
      assert.equal(run.stdout, "");
    }
  });
});
