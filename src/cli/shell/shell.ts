import { createInterface, type Interface } from "node:readline";
import { explain } from "../connect/session.js";
import { exitCodeFor, onStopSignals, type StopSignal } from "../connect/stop-signals.js";
import {
  CONNECTION_OPTIONS,
  connectionSettings,
  describeTarget,
  splitTarget,
} from "../connect/target.js";
import { parseArgs } from "../core/args.js";
import { EXIT_OK, UsageError } from "../core/errors.js";
import { writeOut } from "../core/terminal.js";
import { EXIT_WORDS, ShellCommands } from "./shell-commands.js";
import { ShellConsole } from "./shell-console.js";
import { HISTORY_SIZE, historyPath, ShellHistory } from "./shell-history.js";

const SHELL_USAGE = `Usage: mcpwire shell <target> [options]
       mcpwire shell [options] -- <command> [args…]

An interactive debug shell on one connection: call tools, read resources, get prompts, send
raw JSON-RPC, listen for notifications, restart a stdio server and read its stderr. Type help
inside for the commands. History is kept in ~/.mcpwire_history (or $MCPWIRE_HISTORY).
With stdin not a terminal, lines are read as a script and run one after another.
Example: mcpwire shell -- node dist/examples/stdio-server.js
`;

const PROMPT = "mcp> ";

/**
 * `mcpwire shell`: a readline REPL over McpClient. On a terminal, requests run in the
 * background and their results (and the server's notifications) print above the input line;
 * Ctrl-C cancels what runs and never leaves the shell. Piped input runs line by line, each
 * line finishing before the next, so a script's output comes in order.
 */
export async function runShell(argv: readonly string[]): Promise<number> {
  const parsed = parseArgs(argv, CONNECTION_OPTIONS);
  if (parsed.options.help === true) {
    writeOut(SHELL_USAGE);
    return EXIT_OK;
  }
  const settings = connectionSettings(parsed.options);
  const { target, rest } = await splitTarget(parsed);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  const tty = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const console = new ShellConsole(tty);
  const commands = new ShellCommands(target, settings, console);
  const history = new ShellHistory(historyPath());

  let rl: Interface | undefined;
  const onInterrupt = (): void => {
    if (commands.interrupt()) return;
    if (!tty || !rl) return;
    // Nothing to cancel: drop the half-typed line, as a shell does, and stay.
    rl.write(null, { ctrl: true, name: "e" });
    rl.write(null, { ctrl: true, name: "u" });
    console.out("(to leave, type exit or press Ctrl-D)");
  };
  process.on("SIGINT", onInterrupt);
  // SIGTERM and SIGHUP (a closed terminal) leave the shell: cancel, close, exit 128 + signal.
  let stoppedBy: StopSignal | undefined;
  const stopListening = onStopSignals((signal) => {
    if (signal === "SIGINT") return; // Ctrl-C only cancels, above
    if (stoppedBy !== undefined) process.exit(exitCodeFor(signal));
    stoppedBy = signal;
    commands.interrupt();
    rl?.close();
  });
  try {
    try {
      await commands.connect();
    } catch (error) {
      if (stoppedBy !== undefined) return exitCodeFor(stoppedBy);
      throw explain(error);
    }
    if (stoppedBy !== undefined) return exitCodeFor(stoppedBy);
    if (tty) console.out(`connected to ${describeTarget(target)}; type help for the commands`);
    rl = createInterface({
      input: process.stdin,
      output: tty ? process.stdout : undefined,
      terminal: tty,
      prompt: PROMPT,
      completer: commands.catalog.complete,
      history: tty ? history.load() : [],
      historySize: HISTORY_SIZE,
      removeHistoryDuplicates: true,
    });
    console.attach(rl);
    // On a terminal, readline turns Ctrl-C into this event instead of a signal.
    rl.on("SIGINT", onInterrupt);
    await readLines(rl, commands, history, console);
    return stoppedBy === undefined ? EXIT_OK : exitCodeFor(stoppedBy);
  } finally {
    rl?.close();
    console.attach(undefined);
    process.off("SIGINT", onInterrupt);
    stopListening();
    await commands.close();
  }
}

/** Reads lines until exit or end of input; a terminal gets its prompt back at once. */
function readLines(
  rl: Interface,
  commands: ShellCommands,
  history: ShellHistory,
  console: ShellConsole,
): Promise<void> {
  return new Promise((resolve) => {
    // Scripted input: each line waits for the one before it.
    let queue = Promise.resolve();
    let leaving = false;
    const leave = (): void => {
      if (leaving) return;
      leaving = true;
      void queue.then(resolve);
    };
    rl.on("line", (line) => {
      if (leaving) return;
      history.add(line, (message) => console.err(message));
      if (EXIT_WORDS.has(line.trim())) {
        leave();
        return;
      }
      if (console.tty) {
        void commands.execute(line);
        rl.prompt();
      } else {
        queue = queue.then(() => commands.execute(line));
      }
    });
    rl.on("close", leave);
    if (console.tty) rl.prompt();
  });
}
