/**
 * A hostile server (test/fixtures/hostile-server.ts) puts escape sequences in every string it
 * sends: OSC 52 (clipboard), OSC 8 (hyperlinks), CSI (hidden text, clear screen), BEL, C1 CSI
 * (0x9b), DEL and the bidi override U+202E. Every verb that shows them, run as a user would,
 * must print them as visible escapes (`\x1b]52`) and never raw, on stdout and stderr alike,
 * with --json, --verbose, in the shell (piped and on a pseudo-terminal), in elicitation prompts,
 * in tap's warnings, in the gateway's log and in replay's diff.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  CLI,
  type CliRun,
  hasScript,
  listeningAddress,
  quote,
  runCli,
  startProcess,
  startTerminal,
  stop,
  waitFor,
} from "./run-cli.js";

const HOSTILE = new URL("../fixtures/hostile-server.js", import.meta.url).pathname;
const TARGET = ["--", process.execPath, HOSTILE];

const dir = mkdtempSync(join(tmpdir(), "mcpwire-injection-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The first raw control character in `text`: every C0 control but newline and tab, DEL, C1,
 * the line/paragraph separators and the bidi controls (by code point, so no regex holds them).
 */
function firstRawControl(text: string): { index: number; code: number } | undefined {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const raw =
      (code < 0x20 && code !== 0x0a && code !== 0x09) ||
      (code >= 0x7f && code <= 0x9f) ||
      code === 0x2028 ||
      code === 0x2029 ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069);
    if (raw) return { index, code };
  }
  return undefined;
}

/** No raw control character in either stream, and the visible form of OSC 52 in one of them. */
function assertEscaped(run: CliRun, label: string, visible = "\\x1b]52"): void {
  for (const [name, text] of [
    ["stdout", run.stdout],
    ["stderr", run.stderr],
  ] as const) {
    const raw = firstRawControl(text);
    const around = raw ? text.slice(Math.max(0, raw.index - 40), raw.index + 40) : "";
    assert.equal(
      raw,
      undefined,
      `${label}: raw U+${raw?.code.toString(16).padStart(4, "0")} on ${name}: ${JSON.stringify(around)}`,
    );
  }
  assert.ok(
    run.stdout.includes(visible) || run.stderr.includes(visible),
    `${label}: the escape is shown (${visible})\nstdout: ${run.stdout}\nstderr: ${run.stderr}`,
  );
}

describe("a hostile server's text, as the verbs show it", () => {
  const readable: Array<[string, string[], number, string?]> = [
    ["discover", ["discover"], 0],
    ["call (results, log line, progress line)", ["call", "show", "{}"], 0],
    ["call --verbose (wire log, the server's stderr)", ["call", "show", "{}", "--verbose"], 0],
    ["read", ["read", "res://x"], 0],
    ["prompt", ["prompt", "p"], 0],
    ["a JSON-RPC error's message", ["call", "fail", "{}"], 1],
    ["an unknown tool's error", ["call", "nosuch", "{}"], 1],
    // Quoted as JSON in the refusal the server echoes back.
    ["an elicitation refused when not interactive", ["call", "form", "{}"], 0, "\\u001b]52"],
    ["the stderr of a server that died", ["call", "die", "{}"], 1],
  ];
  for (const [label, args, code, visible] of readable) {
    it(`${label}: controls shown escaped, never raw`, async () => {
      const run = await runCli([...args, ...TARGET]);
      assert.equal(run.code, code, run.stderr);
      assertEscaped(run, label, visible);
    });
  }

  it("the fields are escaped where they stand: names, titles, URIs, log and progress lines", async () => {
    const discover = await runCli(["discover", ...TARGET]);
    assert.match(discover.stdout, /^server {8}server<\\x1b\]52;c;aGFja2Vk\\x07\|/m);
    assert.match(discover.stdout, /^ {2}tool<\\x1b\]52.*\\u202e/m);
    assert.match(discover.stdout, /^instructions {2}instructions\n {14}second line<\\x1b\]52/m);
    const call = await runCli(["call", "show", "{}", ...TARGET]);
    assert.match(call.stdout, /^\[link link:\/\/<\\x1b\]52.*\\x9b1A\|\\x7f\|\\u202e\|\\x07>/m);
    // One line each: a newline in a log message cannot start a line of its own.
    assert.match(call.stderr, /^\[warning logger<\\x1b.*\] log\\x0asecond line<\\x1b\]52/m);
    assert.match(call.stderr, /^progress 1\/2 progress<\\x1b\]52/m);
    const failed = await runCli(["call", "fail", "{}", ...TARGET]);
    assert.match(failed.stderr, /^mcpwire: server error -32603: error message<\\x1b\]52/m);
  });

  it("--json is the wire JSON with DEL, C1 and bidi controls escaped as \\uXXXX", async () => {
    for (const args of [
      ["discover", "--json"],
      ["call", "show", "{}", "--json"],
      ["read", "res://x", "--json"],
      ["prompt", "p", "--json"],
      ["raw", "tools/list"],
    ]) {
      const run = await runCli([...args, ...TARGET]);
      assert.equal(run.code, 0, run.stderr);
      assertEscaped(run, args.join(" "), "\\u001b]52");
      assert.match(run.stdout, /\\u009b1A\|\\u007f\|\\u202e\|\\u0007>/);
      // Parsed, it is exactly what the server sent.
      const parsed = JSON.stringify(JSON.parse(run.stdout));
      assert.ok(parsed.includes("\u009b1A|\u007f|\u202e|"), args.join(" "));
    }
  });

  it("a URL elicitation whose link is not a plain http(s) URL is declined, the link escaped", async () => {
    for (const answer of [[], ["--elicit", "{}"]]) {
      const run = await runCli(["call", "link", "{}", ...answer, ...TARGET]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^answer \{"action":"decline"\}$/m);
      assert.match(run.stderr, /not a plain http\(s\) URL \(\\x1b\]8;;javascript:alert\(1\)/);
      assertEscaped(run, `link ${answer.join(" ")}`, "\\x1b]8;;javascript:");
    }
  });

  it("the scripted shell shows results, logs, errors, JSON and the server's stderr escaped", async () => {
    for (const json of [[], ["--json"]]) {
      const shell = startWithInput(["shell", ...json, ...TARGET]);
      shell.stdin.end(
        [
          ".era",
          "discover",
          "call show {}",
          "read res://x",
          "prompt p",
          "raw tools/list",
          '{"jsonrpc":"2.0","id":"r","method":"resources/list"}',
          "call fail {}",
          ".stderr",
          "call die {}",
          "",
        ].join("\n"),
      );
      const run = await shell.done;
      assert.equal(run.code, 0, run.stderr);
      assertEscaped(run, `shell ${json.join(" ")}`, json.length ? "\\u001b]52" : "\\x1b]52");
      assert.match(run.stderr, /its stderr ended with:\n( {2}.*\n)* {2}dying<\\x1b\]52/);
    }
  });

  it("tap's warnings quote the server's stdout escaped", async () => {
    const tap = startProcess(process.execPath, [
      CLI,
      "tap",
      "--out",
      join(dir, "tap.ndjson"),
      "--",
      process.execPath,
      HOSTILE,
      "--banner",
    ]);
    // No input (stdin is /dev/null): the server prints its banner, sees EOF and leaves.
    const run = await tap.done;
    assert.match(
      run.stderr,
      /^mcpwire tap: non-JSON output on the server's stdout: .*banner<\\u001b\]52/m,
    );
    // stdout is the protocol stream, passed through unchanged; only stderr is for a person.
    assertEscaped({ ...run, stdout: "" }, "tap", "\\u001b]52");
  });

  it("the gateway's log of the child's stderr is escaped", async () => {
    const gateway = startProcess(process.execPath, [
      CLI,
      "gateway",
      "--listen",
      "127.0.0.1:0",
      "--",
      process.execPath,
      HOSTILE,
    ]);
    try {
      const url = await listeningAddress(gateway, "stderr");
      const call = await runCli(["call", url, "show", "{}"]);
      assert.equal(call.code, 0, call.stderr);
      assertEscaped(call, "call through the gateway");
      await waitFor("the child's stderr", () =>
        gateway.stderr().includes("[child] stderr<") ? true : undefined,
      );
    } finally {
      await stop(gateway);
    }
    const run = await gateway.done;
    assert.match(run.stderr, /^\[child\] stderr<\\x1b\]52/m);
    assertEscaped(run, "gateway");
  });

  it("replay's diff and --verbose log show the server's replies escaped", async () => {
    const file = join(dir, "recording.ndjson");
    const record = (direction: string, msg: unknown) =>
      JSON.stringify({ t: 0, dir: direction, msg });
    writeFileSync(
      file,
      `${[
        record("c2s", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "show" } }),
        record("s2c", { jsonrpc: "2.0", id: 1, result: { content: [] } }),
      ].join("\n")}\n`,
    );
    const run = await runCli(["replay", file, "--verbose", ...TARGET]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /^\+\s+"text": "text\\nsecond line<\\u001b\]52/m);
    assertEscaped(run, "replay", "\\u001b]52");
  });
});

/** What a hostile sequence would look like raw; none of it may reach the terminal. */
const HOSTILE_RAW = ["\x1b]", "\x1b[8m", "\x1b[2J", "\u009b", "\u007f", "\u202e", "\x07"];

function assertNoHostileRaw(screen: string, label: string): void {
  for (const sequence of HOSTILE_RAW) {
    const at = screen.indexOf(sequence);
    assert.equal(
      at,
      -1,
      `${label}: raw ${JSON.stringify(sequence)} at ${at}: ${JSON.stringify(screen.slice(Math.max(0, at - 60), at + 60))}`,
    );
  }
  assert.ok(screen.includes("\\x1b]52"), `${label}: the escape is shown`);
}

describe("a hostile server's text on a terminal", {
  skip: hasScript ? false : "util-linux script not found",
}, () => {
  it("elicitation form: message, field title, description and choices escaped", async () => {
    const tty = hostileTerminal(["call", "form", "{}"]);
    try {
      await waitFor("the choices", tty.seen(/2\) choice<\\x1b\]52.*\(choice label<\\x1b/));
      await waitFor("the question", tty.seen(/pick a number or a value: $/m));
      tty.send("1\r");
      await waitFor("the final question", tty.seen(/accept\? \[Y\/n\/cancel\] $/m));
      tty.send("\r");
      const { code } = await tty.done;
      assert.equal(code, 0, tty.output());
      assert.match(tty.output(), /answer \{"action":"accept","content":\{"color":"red"\}\}/);
      assert.match(tty.output(), /elicitation message<\\x1b\]52/);
      assert.match(tty.output(), /field title<\\x1b\]52.*\(color\) — field description<\\x1b/);
      assertNoHostileRaw(tty.output(), "form");
    } finally {
      await tty.close();
    }
  });

  it("a URL elicitation with an unsafe link is declined without asking", async () => {
    const tty = hostileTerminal(["call", "link", "{}"]);
    try {
      const { code } = await tty.done;
      assert.equal(code, 0, tty.output());
      assert.match(tty.output(), /not a plain http\(s\) URL .*declined/);
      assert.doesNotMatch(tty.output(), /Open: /);
      assert.match(tty.output(), /answer \{"action":"decline"\}/);
      assert.ok(!tty.output().includes("\x1b]8"), "no raw OSC 8");
    } finally {
      await tty.close();
    }
  });

  it("the progress bar, log line and result are escaped inside the bar's own redraw", async () => {
    const tty = hostileTerminal(["call", "show", "{}"]);
    try {
      const { code } = await tty.done;
      assert.equal(code, 0, tty.output());
      assert.match(tty.output(), /second line<\\x1b\]52/);
      assertNoHostileRaw(tty.output(), "call on a terminal");
    } finally {
      await tty.close();
    }
  });

  it("the shell: Tab never offers a hostile name; results and discover are escaped", async () => {
    const history = join(dir, "pty-history");
    writeFileSync(history, "call show {}\x1b]52;c;aGk=\x07\n");
    const tty = hostileTerminal(["shell"], { MCPWIRE_HISTORY: history });
    try {
      await waitFor("the prompt", tty.seen(/mcp> /));
      tty.send("call \t\t");
      await waitFor("the tool names", tty.seen(/die\s+fail\s+form\s+link\s+show/));
      tty.send("\x15call show {}\r");
      await waitFor("the result", tty.seen(/embedded<\\x1b\]52/));
      tty.send("discover\r");
      await waitFor("discover", tty.seen(/prompts \(1\)/));
      tty.send("\x1b[A\x1b[A\x1b[A"); // up past the two lines typed: the file's hostile line is not there
      tty.send("\x15exit\r");
      const { code } = await tty.done;
      assert.equal(code, 0, tty.output());
      assert.doesNotMatch(tty.output(), /mcp> .*tool<\\x1b/);
      assertNoHostileRaw(tty.output(), "shell");
    } finally {
      await tty.close();
    }
  });
});

/** Starts the CLI with its stdin a pipe (the scripted shell reads it). */
function startWithInput(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const done = new Promise<CliRun>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { stdin: child.stdin, done };
}

/** Runs the CLI against the hostile server on a pseudo-terminal (stdout and stderr merged). */
function hostileTerminal(args: string[], env: NodeJS.ProcessEnv = {}) {
  return startTerminal([process.execPath, CLI, ...args, ...TARGET].map(quote).join(" "), env);
}

describe("the CLI's writes go through terminal.ts", () => {
  it("no file in src/cli writes to stdout or stderr itself, but for protocol streams", () => {
    const source = new URL("../../../src/cli/", import.meta.url).pathname;
    // tap passes the server's stdout (the protocol) and stderr through unchanged, by design;
    // start-demo prints our own example server's output.
    const allowed = [
      /^\s*if \(!process\.stdout\.write\(chunk\)\) \{$/,
      /^\s*process\.stderr\.write\(chunk\);$/,
    ];
    const offending: string[] = [];
    const files = readdirSync(source, { recursive: true, encoding: "utf8" });
    for (const file of files.filter((name) => name.endsWith(".ts"))) {
      if (file === join("core", "terminal.ts") || file === "start-demo.ts") continue;
      const lines = readFileSync(join(source, file), "utf8").split("\n");
      lines.forEach((line, index) => {
        if (!/process\.(stdout|stderr)\.write\(|console\.(log|error|warn|info)\(/.test(line))
          return;
        if (allowed.some((pattern) => pattern.test(line))) return;
        if (/^\s*(\/\/|\*)/.test(line)) return;
        offending.push(`${file}:${index + 1}: ${line.trim()}`);
      });
    }
    assert.deepEqual(offending, []);
  });
});
