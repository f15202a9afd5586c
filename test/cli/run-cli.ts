/** Runs the compiled `mcpwire` command as a subprocess, as a user would. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { basename } from "node:path";
import {
  describeExit,
  expectExit,
  throwIfAServerDied,
  watchChild,
} from "../helpers/child-watch.js";
import { waitFor as poll } from "../helpers/poll.js";

export const CLI = new URL("../../src/cli/main.js", import.meta.url).pathname;
/** The checkout, where `npx mcpwire` resolves to the package's own bin (dist/pkg/cli/main.js). */
export const REPO = new URL("../../../", import.meta.url).pathname;
const NPX = process.platform === "win32" ? "npx.cmd" : "npx";
export const STDIO_SERVER = new URL("../../examples/stdio-server.js", import.meta.url).pathname;
export const EVERYTHING_SERVER = new URL("../../examples/everything-server.js", import.meta.url)
  .pathname;

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once the process has exited and its pipes are drained. */
  done: Promise<CliRun>;
}

export interface RunOptions {
  /** Added to (or, when undefined, removed from) our environment for the child. */
  env?: Record<string, string | undefined>;
  /** A pipe for stdin instead of nothing. */
  stdin?: boolean;
  cwd?: string;
}

export function startProcess(command: string, args: string[], options: RunOptions = {}): Running {
  const child = spawn(command, args, {
    stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"],
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  child.stderr!.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const done = new Promise<CliRun>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

export function startCli(args: string[], options?: RunOptions): Running {
  return startProcess(process.execPath, [CLI, ...args], options);
}

export function runCli(args: string[], options?: RunOptions): Promise<CliRun> {
  return startCli(args, options).done;
}

/**
 * Runs `npx --no mcpwire …` in the checkout, the way a user runs the bundled bin (it needs
 * `npm run build`). `--no`: never fetch a package from the registry.
 */
export function runNpx(args: string[], options: RunOptions = {}): Promise<CliRun> {
  return startProcess(NPX, ["--no", "mcpwire", ...args], { cwd: REPO, ...options }).done;
}

/**
 * Polls until `check` returns something, or fails after `timeoutMs`; fails at once, with its exit
 * code and stderr, when a server a helper started for the test has died meanwhile.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined,
  timeoutMs = 15_000,
): Promise<T> {
  return poll(
    what,
    () => {
      throwIfAServerDied();
      return check();
    },
    timeoutMs,
  );
}

/** "mcpwire gateway" for our command, else the script's or program's file name. */
export function processName(child: ChildProcess): string {
  const [program, script, verb] = child.spawnargs;
  if (script === CLI) return `mcpwire ${verb ?? ""}`.trimEnd();
  return basename(program === process.execPath && script ? script : (program ?? "?"));
}

/**
 * Waits for a "listening on <address>" line from a server started with startProcess; from then on
 * its death before `stop` is reported with its exit code and stderr (child-watch.ts).
 */
export async function listeningAddress(
  running: Running,
  from: "stdout" | "stderr",
): Promise<string> {
  return whenListening(
    running,
    "the server to listen",
    () => /listening on (\S+)/.exec(from === "stdout" ? running.stdout() : running.stderr())?.[1],
  );
}

/**
 * Polls `address` until the server started with startProcess says where it listens; if it exits
 * first, fails with its exit code and whole stderr. Then watches it (see listeningAddress).
 */
export async function whenListening(
  running: Running,
  what: string,
  address: () => string | undefined,
  timeoutMs?: number,
): Promise<string> {
  const exited = () => running.child.exitCode !== null || running.child.signalCode !== null;
  const found = await waitFor(what, () => (exited() ? null : address()), timeoutMs);
  const name = processName(running.child);
  if (found === null) {
    const { stderr } = await running.done;
    throw new Error(describeExit(name, running.child, stderr, "before it listened"));
  }
  watchChild(name, running.child, running.stderr);
  return found;
}

/** Stops a server process and waits for it. */
export async function stop(running: Running): Promise<void> {
  expectExit(running.child);
  if (running.child.exitCode === null && running.child.signalCode === null) {
    running.child.kill("SIGTERM");
  }
  await running.done;
}

/** A pseudo-terminal comes from util-linux `script`; where it is missing a test says so. */
export const hasScript = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;

/** Runs a shell command on a pseudo-terminal; `screen` is what it shows, escapes removed. */
export function startTerminal(command: string, env: NodeJS.ProcessEnv = {}) {
  const child: ChildProcess = spawn("script", ["-qfec", command, "/dev/null"], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, TERM: "xterm", ...env },
  });
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (text: string) => {
    output += text;
  });
  child.stderr!.resume();
  const done = new Promise<{ code: number | null }>((resolve) => {
    child.on("close", (code) => resolve({ code }));
  });
  // What the screen shows without readline's cursor movements, for matching text.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching ESC is the point here.
  const screen = () => output.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
  return {
    child,
    done,
    /** Everything written, escapes included. */
    output: () => output,
    screen,
    send: (text: string) => child.stdin!.write(text),
    seen: (pattern: RegExp) => () => (pattern.test(screen()) ? true : undefined),
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await done;
    },
  };
}

/** A word quoted for sh. */
export function quote(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}
