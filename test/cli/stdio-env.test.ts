import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { CLI, type CliRun, listeningAddress, runCli, startProcess, stop } from "./run-cli.js";
import { runInProcess } from "./run-in-process.js";

const ENV_SERVER = new URL("../fixtures/cli-env-server.js", import.meta.url).pathname;
const server = ["--", process.execPath, ENV_SERVER];
const SECRET = "s3cret-value-do-not-print";
const dir = mkdtempSync(join(tmpdir(), "mcpwire-env-"));

/** The CLI run with MCPWIRE_TEST_SECRET in its own environment. */
function runWithSecret(args: string[]): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, MCPWIRE_TEST_SECRET: SECRET },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  return new Promise((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const getenv = (name: string) => ["call", "getenv", JSON.stringify({ name })];

describe("a stdio server's environment: -e/--env, --env-from, --inherit-env", () => {
  it("keeps our secrets from the server unless passed on with --env KEY", async () => {
    const hidden = await runWithSecret([...getenv("MCPWIRE_TEST_SECRET"), ...server]);
    assert.equal(hidden.code, 0, hidden.stderr);
    assert.equal(hidden.stdout, "(unset)\n");
    const passed = await runWithSecret([
      ...getenv("MCPWIRE_TEST_SECRET"),
      "--env",
      "MCPWIRE_TEST_SECRET",
      ...server,
    ]);
    assert.equal(passed.code, 0, passed.stderr);
    assert.equal(passed.stdout, `${SECRET}\n`);
  });

  it("-e KEY=VALUE sets a variable; the value may hold = and spaces", async () => {
    const run = await runCli([...getenv("GREETING"), "-e", "GREETING=a=b c", ...server]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "a=b c\n");
  });

  it("--inherit-env passes on the whole environment", async () => {
    const run = await runWithSecret([...getenv("MCPWIRE_TEST_SECRET"), "--inherit-env", ...server]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${SECRET}\n`);
  });

  it("--env-from reads comments, export, quotes and inline comments; -e wins over it", async () => {
    const file = join(dir, "vars.env");
    writeFileSync(
      file,
      [
        "# a comment",
        "",
        "export PLAIN=plain value # trailing comment",
        'DOUBLE="two\\nlines # kept"',
        "SINGLE='lit\\n #eral'",
        "OVERRIDDEN=from-file",
      ].join("\n"),
    );
    const expect = {
      PLAIN: "plain value",
      DOUBLE: "two\nlines # kept",
      SINGLE: "lit\\n #eral",
      OVERRIDDEN: "from-flag",
    };
    for (const [name, value] of Object.entries(expect)) {
      const run = await runCli([
        ...getenv(name),
        "--env-from",
        file,
        "--env=OVERRIDDEN=from-flag",
        "--json",
        ...server,
      ]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(JSON.parse(run.stdout).content[0].text, value, name);
    }
  });

  it("a bad --env-from line is named by file and line, without its value", async () => {
    const file = join(dir, "bad.env");
    writeFileSync(file, `OK=1\nTOKEN="${SECRET}\n`);
    const run = await runInProcess([...getenv("OK"), "--env-from", file, ...server]);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, `mcpwire: ${file}:2: TOKEN: unterminated double quote\n`);
    const noEquals = join(dir, "no-equals.env");
    writeFileSync(noEquals, `# x\n${SECRET}\n`);
    const second = await runInProcess([...getenv("OK"), "--env-from", noEquals, ...server]);
    assert.equal(second.code, 2);
    assert.equal(second.stderr, `mcpwire: ${noEquals}:2: expected KEY=VALUE\n`);
  });

  it("--env KEY for a variable we do not have, or a bad name, is a usage error", async () => {
    const unset = await runInProcess([
      ...getenv("X"),
      "--env",
      "MCPWIRE_SURELY_UNSET_VAR",
      ...server,
    ]);
    assert.equal(unset.code, 2);
    assert.match(unset.stderr, /MCPWIRE_SURELY_UNSET_VAR is not set in this environment/);
    const bad = await runInProcess([...getenv("X"), "--env", `1BAD=${SECRET}`, ...server]);
    assert.equal(bad.code, 2);
    assert.doesNotMatch(bad.stderr, new RegExp(SECRET));
  });

  it("--verbose names the added variables but never shows their values", async () => {
    const run = await runWithSecret([
      ...getenv("MCPWIRE_TEST_SECRET"),
      "--verbose",
      "-e",
      "MCPWIRE_TEST_SECRET",
      "-e",
      `OTHER=${SECRET}x`,
      ...server,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /^-- server environment: the allowlist \+ MCPWIRE_TEST_SECRET, OTHER$/m,
    );
    // The tool's reply carries the value (that is the point); nothing else may.
    assert.doesNotMatch(run.stderr.replace(/^<- .*$/gm, ""), new RegExp(SECRET));
  });

  it("environment options on a URL target are a usage error", async () => {
    const run = await runInProcess(["discover", "http://127.0.0.1:9/mcp", "-e", "A=1"]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--env, --env-from and --inherit-env are for a stdio server/);
  });

  it("the gateway starts its child with -e and --env-from", async () => {
    const file = join(dir, "gateway.env");
    writeFileSync(file, "FROM_FILE=file-value\n");
    const gateway = startProcess(process.execPath, [
      CLI,
      "gateway",
      "-e",
      "FROM_FLAG=flag-value",
      "--env-from",
      file,
      ...server,
    ]);
    try {
      const url = await listeningAddress(gateway, "stderr");
      const flag = await runCli(["call", url, "getenv", '{"name":"FROM_FLAG"}']);
      assert.equal(flag.code, 0, flag.stderr);
      assert.equal(flag.stdout, "flag-value\n");
      const fromFile = await runCli(["call", url, "getenv", '{"name":"FROM_FILE"}']);
      assert.equal(fromFile.stdout, "file-value\n");
    } finally {
      await stop(gateway);
    }
  });
});
