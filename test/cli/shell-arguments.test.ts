import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { CLI, type CliRun, runCli, STDIO_SERVER } from "./run-cli.js";
import { runInProcess } from "./run-in-process.js";

const server = ["--", process.execPath, STDIO_SERVER];
const dir = mkdtempSync(join(tmpdir(), "mcpwire-args-"));

/** The CLI with `input` on its stdin. */
function runWithInput(args: string[], input: string): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  child.stdin.end(input);
  return new Promise((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe("arguments the way a shell user types them", () => {
  it("key=value pairs are typed by the tool's input schema: numbers parsed, strings kept", async () => {
    const add = await runCli(["call", "add", "a=2", "b=3.5", "--json", ...server]);
    assert.equal(add.code, 0, add.stderr);
    assert.deepEqual(JSON.parse(add.stdout).structuredContent, { sum: 5.5 });
    // A string property keeps what was typed, leading zeros and all.
    const echo = await runCli(["call", "echo", "text=007", ...server]);
    assert.equal(echo.code, 0, echo.stderr);
    assert.equal(echo.stdout, "007\n");
  });

  it("a pair that does not fit its type is a usage error naming it", async () => {
    const run = await runCli(["call", "add", "a=two", "b=3", ...server]);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, 'mcpwire: tool arguments: a="two" is not a number\n');
    const word = await runCli(["call", "add", "a=1", "oops", ...server]);
    assert.equal(word.code, 2);
    assert.match(
      word.stderr,
      /expected key=value pairs, one JSON object, @file\.json or -; got "oops"/,
    );
  });

  it("@file.json and - (stdin) give the arguments as JSON", async () => {
    const file = join(dir, "args.json");
    writeFileSync(file, '{"a": 4, "b": 5}');
    const fromFile = await runCli(["call", "add", `@${file}`, ...server]);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.equal(fromFile.stdout, "9\n");
    const fromStdin = await runWithInput(["call", "echo", "-", ...server], '{"text":"piped"}');
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    assert.equal(fromStdin.stdout, "piped\n");
    const missing = await runCli(["call", "add", `@${join(dir, "none.json")}`, ...server]);
    assert.equal(missing.code, 2);
    assert.match(
      missing.stderr,
      /^mcpwire: cannot read tool arguments from \S+none\.json \(ENOENT\)\n$/,
    );
    const params = await runWithInput(
      ["raw", "tools/call", "-", "--json", ...server],
      '{"name":"echo","arguments":{"text":"raw"}}',
    );
    assert.equal(params.code, 0, params.stderr);
    assert.equal(JSON.parse(params.stdout).content[0].text, "raw");
  });

  it("prompt takes name=value pairs as strings", async () => {
    const run = await runCli(["prompt", "greet", "name=Ada", ...server]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Please greet Ada warmly\./);
  });
});

describe("mcpwire completion bash|zsh|fish", () => {
  it("prints a bash script that parses and completes verbs, options and .mcp.json servers", async () => {
    const run = await runInProcess(["completion", "bash"]);
    assert.equal(run.code, 0, run.stderr);
    const script = join(dir, "mcpwire.bash");
    writeFileSync(script, run.stdout);
    const parsed = spawnSync("bash", ["-n", script], { encoding: "utf8" });
    assert.equal(parsed.status, 0, parsed.stderr);
    writeFileSync(
      join(dir, ".mcp.json"),
      '{"mcpServers":{"alpha":{"command":"x"},"beta":{"url":"http://h/"}}}',
    );
    const complete = (words: string[]) => {
      const line = ["mcpwire", ...words];
      const result = spawnSync(
        "bash",
        [
          "-c",
          `source ${JSON.stringify(script)}; COMP_WORDS=(${line.map((w) => `'${w}'`).join(" ")}); ` +
            `COMP_CWORD=${line.length - 1}; _mcpwire; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: "utf8", cwd: dir },
      );
      assert.equal(result.status, 0, result.stderr);
      return result.stdout.trim().split("\n");
    };
    assert.deepEqual(complete(["di"]), ["discover"]);
    // Every verb the usage text names completes, task included.
    const help = await runInProcess(["--help"]);
    const verbs = [
      ...new Set([...help.stdout.matchAll(/^ {2}mcpwire ([a-z]+)/gm)].map((m) => m[1])),
    ];
    assert.ok(verbs.includes("task"));
    assert.deepEqual(complete([""]).sort(), [...verbs, "--help", "--version"].sort());
    assert.deepEqual(complete(["call", "--env-f"]), ["--env-from"]);
    assert.deepEqual(complete(["call", "--era", "l"]), ["legacy"]);
    assert.deepEqual(complete(["call", "--server", ""]), ["alpha", "beta"]);
  });

  it("prints zsh and fish scripts; any other shell is a usage error", async () => {
    const zsh = await runInProcess(["completion", "zsh"]);
    assert.equal(zsh.code, 0);
    assert.match(zsh.stdout, /^#compdef mcpwire\n/);
    assert.match(zsh.stdout, /compdef _mcpwire mcpwire\n$/);
    const fish = await runInProcess(["completion", "fish"]);
    assert.equal(fish.code, 0);
    assert.match(fish.stdout, /^complete -c mcpwire -l env-from -r -F$/m);
    const other = await runInProcess(["completion", "tcsh"]);
    assert.equal(other.code, 2);
    assert.equal(other.stderr, "mcpwire: usage: mcpwire completion bash|zsh|fish\n");
  });
});
