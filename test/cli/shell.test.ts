/**
 * `mcpwire shell` driven as a user would: piped stdin (scripted, plain output) against the
 * stdio example server and the everything-server over HTTP, and a pseudo-terminal (util-linux
 * `script`) for Tab completion and history recall.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  CLI,
  EVERYTHING_SERVER,
  listeningAddress,
  type Running,
  STDIO_SERVER,
  startProcess,
  stop,
  waitFor,
} from "./run-cli.js";

interface Shell {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  send(text: string): void;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

const dir = mkdtempSync(join(tmpdir(), "mcpwire-shell-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function historyFile(name: string): string {
  return join(dir, name);
}

/** Starts a process with stdin piped, collecting its output. */
function startWithStdin(command: string, args: string[], env: NodeJS.ProcessEnv): Shell {
  const child = spawn(command, args, {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  child.stderr!.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    send: (text) => child.stdin!.write(text),
    done,
  };
}

function startShell(target: string[], history: string): Shell {
  return startWithStdin(process.execPath, [CLI, "shell", ...target], {
    MCPWIRE_HISTORY: history,
  });
}

const STDIO_TARGET = ["--", process.execPath, STDIO_SERVER];

/** Kills a shell left running by a failed assertion. */
async function finish(shell: Shell): Promise<void> {
  if (shell.child.exitCode === null && shell.child.signalCode === null) shell.child.kill();
  await shell.done;
}

describe("mcpwire shell over stdio, scripted", () => {
  test("runs each command in order and exits 0 on exit", async () => {
    const history = historyFile("stdio-history");
    const shell = startShell(STDIO_TARGET, history);
    const script = [
      ".era",
      'call echo {"text":"hello shell"}',
      "read example://readme",
      'prompt greet {"name":"Ada"}',
      "raw tools/list",
      '{"jsonrpc":"2.0","id":"raw-1","method":"tools/list"}',
      "discover",
      "call noisy",
      "nonsense",
    ];
    shell.send(`${script.join("\n")}\n`);
    try {
      await waitFor("the noisy tool", () =>
        /^made some noise on stderr$/m.test(shell.stdout()) ? true : undefined,
      );
      // The server's stderr is a pipe of its own: ask until its tail has caught up.
      let asked = 0;
      await waitFor("the stderr tail", () => {
        if (/^noisy: console\.log from a tool handler$/m.test(shell.stdout())) return true;
        if (asked++ % 8 === 0) shell.send(".stderr\n");
        return undefined;
      });
      shell.send('exit\ncall echo {"text":"never run"}\n');
      const { code, stdout, stderr } = await shell.done;
      assert.equal(code, 0, stderr);
      assert.match(stdout, /^era modern, protocol 2026-07-28 .*mcpwire-example-stdio/m);
      assert.match(stdout, /^hello shell$/m);
      assert.match(stdout, /^# mcpwire example$/m);
      assert.match(stdout, /^user: Please greet Ada/m);
      assert.match(stdout, /"name": "slow_count"/);
      // The raw line went out as typed (no _meta): the reply is the server's refusal, by its id.
      const rawReply = stdout.split("\n").find((line) => line.includes('"raw-1"'));
      assert.ok(rawReply, stdout);
      assert.equal(JSON.parse(rawReply).id, "raw-1");
      assert.match(stdout, /^tools \(4\)$/m);
      assert.match(stdout, /^made some noise on stderr$/m);
      assert.match(stdout, /^noisy: console\.log from a tool handler$/m);
      assert.match(stderr, /error: unknown command "nonsense"/);
      assert.doesNotMatch(stdout, /never run/);
      // Results come in the order of the script.
      assert.ok(stdout.indexOf("hello shell") < stdout.indexOf("# mcpwire example"));
      const saved = readFileSync(history, "utf8").split("\n");
      assert.deepEqual(saved.slice(0, 3), script.slice(0, 3));
      assert.ok(saved.includes("exit"));
    } finally {
      await finish(shell);
    }
  });

  test("Ctrl-C and cancel stop the running request, not the shell; .restart starts a new server", async () => {
    const shell = startShell(STDIO_TARGET, historyFile("cancel-history"));
    try {
      shell.send('call slow_count {"n":100}\n');
      await waitFor("progress", () =>
        /#1 progress 1\/100/.test(shell.stderr()) ? true : undefined,
      );
      shell.child.kill("SIGINT");
      await waitFor("the cancel", () =>
        /#1 call slow_count: cancelled/.test(shell.stderr()) ? true : undefined,
      );
      assert.doesNotMatch(shell.stdout(), /counted to 100/);
      shell.send('call slow_count {"n":100}\n');
      await waitFor("progress", () =>
        /#2 progress 1\/100/.test(shell.stderr()) ? true : undefined,
      );
      // A scripted shell runs lines in order, so `cancel` waits its turn: use the signal again
      // for the running one and check `cancel` with nothing to do.
      shell.child.kill("SIGINT");
      await waitFor("the second cancel", () =>
        /#2 call slow_count: cancelled/.test(shell.stderr()) ? true : undefined,
      );
      shell.send("cancel\n.stderr\n.restart\n.stderr\n");
      shell.send('call echo {"text":"after restart"}\nexit\n');
      const { code, stdout, stderr } = await shell.done;
      assert.equal(code, 0, stderr);
      assert.match(stderr, /nothing is running/);
      assert.match(stdout, /reconnecting to a fresh server/);
      assert.match(stdout, /^after restart$/m);
      // The fresh server has written nothing yet; the first one had (its stderr tail is gone).
      assert.match(stdout, /\(the server has written nothing to stderr\)/);
    } finally {
      await finish(shell);
    }
  });
});

describe("mcpwire shell over HTTP", () => {
  let server: Running;
  let url: string;

  before(async () => {
    server = startProcess(process.execPath, [EVERYTHING_SERVER, "--http", "--port", "0"]);
    url = await listeningAddress(server, "stdout");
  });
  after(async () => {
    await stop(server);
  });

  test("listen prints list_changed notifications as they arrive", async () => {
    const shell = startShell([url], historyFile("http-history"));
    try {
      shell.send("listen\n");
      await waitFor("the acknowledgement", () =>
        /^listening: .*toolsListChanged/m.test(shell.stdout()) ? true : undefined,
      );
      shell.send("call test_trigger_tool_change\n");
      await waitFor("the notification", () =>
        /^<- notifications\/tools\/list_changed/m.test(shell.stdout()) ? true : undefined,
      );
      shell.send('.era\n.stderr\n{"jsonrpc":"2.0","id":7,"method":"ping"}\nunlisten\nexit\n');
      const { code, stdout, stderr } = await shell.done;
      assert.equal(code, 0, stderr);
      assert.match(stdout, /^Tool list changed$/m);
      assert.match(stdout, /^era modern/m);
      assert.match(stderr, /only a stdio server/);
      const reply = stdout.split("\n").find((line) => line.startsWith('{"jsonrpc":"2.0","id":7'));
      assert.ok(reply, stdout);
      assert.match(stdout, /^closed 1 subscription\(s\)$/m);
    } finally {
      await finish(shell);
    }
  });

  test("the legacy era works the same way", async () => {
    const shell = startShell([url, "--era", "legacy"], historyFile("legacy-history"));
    shell.send(".era\ncall test_simple_text\n");
    try {
      shell.child.stdin!.end(); // end of input leaves the shell like exit
      const { code, stdout, stderr } = await shell.done;
      assert.equal(code, 0, stderr);
      assert.match(stdout, /^era legacy, protocol 2025-11-25/m);
      assert.match(stdout, /^This is a simple text response for testing\.$/m);
    } finally {
      await finish(shell);
    }
  });
});

describe("mcpwire shell over TCP", () => {
  const fixture = new URL("../fixtures/cli-socket-server.js", import.meta.url).pathname;
  let server: Running;
  let address: string;

  before(async () => {
    server = startProcess(process.execPath, [fixture]);
    address = await listeningAddress(server, "stdout");
  });
  after(() => stop(server));

  test("calls a tool, reconnects with .restart and calls again", async () => {
    const shell = startShell([address], historyFile("tcp-history"));
    shell.send('call echo {"text":"first"}\n.restart\ncall echo {"text":"second"}\nexit\n');
    try {
      const { code, stdout, stderr } = await shell.done;
      assert.equal(code, 0, stderr);
      assert.match(
        stdout,
        /^first\nreconnecting to the server…\nera .*cli-socket-fixture.*\nsecond$/m,
      );
    } finally {
      await finish(shell);
    }
  });
});

// A pseudo-terminal comes from util-linux `script`; where it is missing the test says so.
const hasScript = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;

describe("mcpwire shell on a terminal", {
  skip: hasScript ? false : "util-linux script not found",
}, () => {
  test("Tab completes verbs, tool names and URIs; Up recalls history from earlier runs", async () => {
    const history = historyFile("pty-history");
    writeFileSync(history, 'call echo {"text":"from an earlier run"}\n');
    const command = [process.execPath, CLI, "shell", ...STDIO_TARGET].map(quote).join(" ");
    const shell = startWithStdin("script", ["-qfec", command, "/dev/null"], {
      MCPWIRE_HISTORY: history,
      TERM: "xterm",
    });
    // What the terminal shows, without the cursor movements readline draws with. A result is
    // told from the echo of the typed line by the newline right after it (the echo has `"}`).
    const screen = () => withoutEscapes(shell.stdout());
    const seen = (pattern: RegExp) => () => (pattern.test(screen()) ? true : undefined);
    try {
      await waitFor("the prompt", seen(/mcp> /));
      shell.send("cal\t");
      await waitFor("the verb completed", seen(/mcp> .*call $/m));
      shell.send("ec\t");
      await waitFor("the tool completed", seen(/call echo $/m));
      shell.send('{"text":"typed on a tty"}\r');
      await waitFor("the result", seen(/typed on a tty\r?\n/));
      shell.send("read ex\t");
      await waitFor("the uri completed", seen(/read example:\/\/readme $/m));
      shell.send("\r");
      await waitFor("the resource", seen(/Tools: echo, add/));
      shell.send("\x1b[A\x1b[A\x1b[A\r"); // three entries back: the earlier run's line
      await waitFor("the recalled command's result", seen(/from an earlier run\r?\n/));
      shell.send("\x04"); // Ctrl-D
      const { code } = await shell.done;
      assert.equal(code, 0);
      const saved = readFileSync(history, "utf8");
      assert.match(saved, /call echo \{"text":"typed on a tty"\}/);
    } finally {
      await finish(shell);
    }
  });

  test("output arrives above the half-typed line; Ctrl-C cancels, then clears, never exits", async () => {
    const command = [process.execPath, CLI, "shell", ...STDIO_TARGET].map(quote).join(" ");
    const shell = startWithStdin("script", ["-qfec", command, "/dev/null"], {
      MCPWIRE_HISTORY: historyFile("pty-cancel-history"),
      TERM: "xterm",
    });
    const screen = () => withoutEscapes(shell.stdout());
    const seen = (pattern: RegExp) => () => (pattern.test(screen()) ? true : undefined);
    try {
      await waitFor("the prompt", seen(/mcp> /));
      shell.send('call slow_count {"n":100}\r');
      await waitFor("progress", seen(/#1 progress 1\/100/));
      shell.send("ech"); // typed while the request runs in the background
      await waitFor(
        "the line redrawn under new output",
        seen(/progress \d+\/100[^\n]*\n\s*mcp> ech/),
      );
      shell.send("\x03");
      await waitFor("the cancel", seen(/#1 call slow_count: cancelled/));
      shell.send("\x03");
      await waitFor("the hint", seen(/to leave, type exit or press Ctrl-D/));
      shell.send("exit\r");
      const { code } = await shell.done;
      assert.equal(code, 0);
      assert.doesNotMatch(screen(), /counted to 100/);
    } finally {
      await finish(shell);
    }
  });
});

/** Terminal output without the escape sequences readline moves the cursor with. */
function withoutEscapes(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching ESC is the point here.
  return text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");
}

function quote(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}
