/**
 * The shell takes a tool's arguments as the command does (issue 25.D9): key=value typed by the
 * tool's input schema, quotes for spaces, JSON and @file.json as before; and `tools`,
 * `resources`, `prompts` list what the server has. A scripted shell (piped stdin) against the
 * stdio example server.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type CliRun, STDIO_SERVER, startCli } from "./run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "mcpwire-shell-words-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A shell over the stdio example, fed `lines` and then the end of its input. */
function shell(lines: string[], options: string[] = []): Promise<CliRun> {
  const running = startCli(["shell", ...options, "--", process.execPath, STDIO_SERVER], {
    stdin: true,
    env: { MCPWIRE_HISTORY: join(dir, "history") },
  });
  running.child.stdin!.end(`${lines.join("\n")}\n`);
  return running.done;
}

describe("the shell's call arguments", () => {
  it("key=value pairs typed by the schema, quoted values, JSON and @file.json", async () => {
    const file = join(dir, "args.json");
    writeFileSync(file, '{"text":"from a file"}');
    const run = await shell([
      "call add a=2 b=3.5",
      'call echo text="hi there"',
      "call echo text='it''s'",
      "call echo text=007",
      'call echo {"text":"as JSON"}',
      `call echo @${file}`,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    assert.deepEqual(run.stdout.split("\n"), [
      "5.5",
      "hi there",
      "its",
      "007",
      "as JSON",
      "from a file",
      "",
    ]);
  });

  it("a bare word, an unclosed quote, a value the schema refuses and `-` are one error line each", async () => {
    const run = await shell([
      "call echo hello",
      'call echo text="open',
      "call add a=two b=1",
      "call echo -",
      "call echo text=still-here",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.stderr.split("\n"), [
      'error: tool arguments: expected key=value or JSON, got "hello"',
      'error: tool arguments: a " quote is not closed',
      'error: tool arguments: a="two" is not a number',
      'error: tool arguments: "-" reads stdin, which is the shell\'s; give JSON or key=value',
      "",
    ]);
    assert.equal(run.stdout, "still-here\n");
  });
});

describe("the shell's tools, resources and prompts", () => {
  it("list names, descriptions and arguments", async () => {
    const run = await shell(["tools", "resources", "prompts"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /^tools \(4\)\n {2}echo +Returns its text unchanged\. {2}args: text\*$/m,
    );
    assert.match(run.stdout, /^ {2}add +Adds two numbers\. {2}args: a\*, b\*$/m);
    assert.match(run.stdout, /^resources \(1\)\n {2}example:\/\/readme +About this server/m);
    assert.match(run.stdout, /^resource templates \(1\)\n {2}example:\/\/colors\/\{color\}/m);
    assert.match(
      run.stdout,
      /^prompts \(1\)\n {2}greet +Asks the model to greet someone\. {2}args: name\*$/m,
    );
    // In the order typed.
    assert.ok(run.stdout.indexOf("tools (4)") < run.stdout.indexOf("resources (1)"));
    assert.ok(run.stdout.indexOf("resources (1)") < run.stdout.indexOf("prompts (1)"));
  });

  it("--json gives the lists as the server sent them", async () => {
    const run = await shell(["tools"], ["--json"]);
    assert.equal(run.code, 0, run.stderr);
    const { tools } = JSON.parse(run.stdout) as { tools: { name: string }[] };
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ["echo", "add", "slow_count", "noisy"],
    );
  });
});
