import { createWriteStream, type WriteStream } from "node:fs";
import { constants } from "node:os";
import { performance } from "node:perf_hooks";
import { StringDecoder } from "node:string_decoder";
import spawn from "cross-spawn";
import { printableLine } from "../../text/printable.js";
import {
  signalTree,
  spawnsProcessGroups,
  terminateLeftovers,
  trackTree,
  untrackTree,
} from "../../transports/stdio/process-tree.js";
import { childEnvSettings } from "../connect/child-env.js";
import { onStopSignals } from "../connect/stop-signals.js";
import { parseArgs } from "../core/args.js";
import { CliError, UsageError } from "../core/errors.js";
import { observeRelay } from "../core/instrumentation.js";
import { openOwnFile } from "../core/own-file.js";
import { writeErr, writeOut } from "../core/terminal.js";
import { LineSplitter } from "./line-splitter.js";
import { TapMonitor, type TapRecord } from "./tap-monitor.js";

const TAP_USAGE = `Usage: mcpwire tap --out <file> [options] [--] <command> [args…]

A transparent stdio proxy: put it where a client launches its server. Bytes pass through
unchanged both ways (our stdin to the server's stdin, its stdout to our stdout, its stderr to
our stderr), while every message is recorded to <file> as NDJSON:
  {"t": <ms since start>, "dir": "c2s"|"s2c", "msg": <message>}
  {"t": …, "dir": …, "raw": "<line that is not JSON-RPC>"}   {"t": …, "stderr": "<text>"}
and protocol violations are reported live on stderr, one line each ("mcpwire tap: …"):
non-JSON or non-MCP output on the server's stdout, responses to unknown ids, replies or
progress for cancelled requests, server-sent requests on a modern connection (one whose
client requests carry a 2026-07-28 _meta protocol version), and a hang: the server wrote to
stderr and then nothing on stdout for --hang-ms while a request was pending.
EOF on our stdin closes the server's stdin; the exit code is the server's.
tap's options come first: the first word that is not one starts the server's command (a \`--\`
before it is optional), and everything from there on is the server's, its options included.

Options:
  --out <file>        where to write the recording (required)
  --hang-ms <ms>      silence after stderr output that counts as a hang (default 5000)
  --quiet             record only, report nothing
  -e, --env KEY=VALUE, --env-from <file>
                      variables added to the server's environment (it gets all of ours too)
`;

export async function runTap(argv: readonly string[]): Promise<number> {
  const parsed = parseArgs(
    argv,
    {
      out: "value",
      "hang-ms": "value",
      quiet: "flag",
      help: "flag",
      env: "list",
      "env-from": "list",
    },
    { commandAtFirstWord: true },
  );
  const { options } = parsed;
  if (options.help === true) {
    writeOut(TAP_USAGE);
    return 0;
  }
  const out = options.out as string | undefined;
  if (out === undefined) {
    // `tap node server.js --out f`: the --out went to the server's command line.
    const late = parsed.command?.some((word) => word === "--out" || word.startsWith("--out="));
    throw new UsageError(
      late
        ? "tap needs --out <file> before the server's command (options after it are the server's)"
        : "tap needs --out <file> for the recording",
    );
  }
  if (parsed.command === undefined) {
    throw new UsageError(
      "tap needs the server's command: mcpwire tap --out s.ndjson node server.js",
    );
  }
  const hangMs = options["hang-ms"] === undefined ? 5000 : Number(options["hang-ms"]);
  if (!(Number.isInteger(hangMs) && hangMs > 0)) {
    throw new UsageError("--hang-ms must be a positive number of milliseconds");
  }
  const quiet = options.quiet === true;
  const extraEnv = childEnvSettings(options).env;

  const recording = await openRecording(out);
  const started = performance.now();
  const now = () => Math.round((performance.now() - started) * 1000) / 1000;
  const record = (entry: TapRecord | Record<string, unknown>) => {
    recording.write(`${JSON.stringify(entry)}\n`);
  };
  // With --otel, each request crossing is a span in its sender's trace.
  const relay = observeRelay();
  const monitor = new TapMonitor({
    record,
    observe: relay && ((direction, message) => relay.message(direction, message)),
    warn: (message) => {
      if (!quiet) writeErr(`mcpwire tap: ${printableLine(message)}`);
    },
    now,
    hangMs,
  });
  record({ t: 0, tap: { started: new Date().toISOString(), command: parsed.command } });

  const [command, ...args] = parsed.command;
  // The whole environment: tap stands in for the server, so the server gets what we got.
  const child = spawn(command!, args, {
    env: { ...process.env, ...extraEnv },
    stdio: ["pipe", "pipe", "pipe"],
    detached: spawnsProcessGroups,
    windowsHide: true,
  });
  const spawned = await new Promise<boolean>((resolve) => {
    child.once("spawn", () => resolve(true));
    child.once("error", () => resolve(false));
  });
  if (!spawned || child.pid === undefined) {
    recording.end();
    throw new CliError(`could not start ${JSON.stringify(command)}`);
  }
  const pid = child.pid;
  // Tied to our life (orphan-watchdog.ts): a tap killed outright takes the server with it.
  trackTree(pid, { dieWithParent: true });

  const fromClient = new LineSplitter(
    (line) => monitor.clientLine(line),
    (size) => monitor.oversized("c2s", size),
  );
  const fromServer = new LineSplitter(
    (line) => monitor.serverLine(line),
    (size) => monitor.oversized("s2c", size),
  );
  const stderrText = new StringDecoder("utf8");

  // Client → server, raw bytes, with backpressure both ways.
  const stdin = process.stdin;
  const childIn = child.stdin!;
  childIn.on("error", () => {}); // EPIPE after the server exited: its exit is what we report.
  const onInput = (chunk: Buffer) => {
    if (!childIn.write(chunk)) {
      stdin.pause();
      childIn.once("drain", () => stdin.resume());
    }
    fromClient.push(chunk);
  };
  const onInputEnd = () => {
    fromClient.end();
    childIn.end();
  };
  stdin.on("data", onInput);
  stdin.once("end", onInputEnd);

  // Server → client.
  process.stdout.on("error", () => {}); // the client went away; the server will notice its stdin.
  child.stdout!.on("data", (chunk: Buffer) => {
    if (!process.stdout.write(chunk)) {
      child.stdout!.pause();
      process.stdout.once("drain", () => child.stdout!.resume());
    }
    fromServer.push(chunk);
  });
  child.stdout!.once("end", () => fromServer.end());
  child.stderr!.on("data", (chunk: Buffer) => {
    process.stderr.write(chunk);
    const text = stderrText.write(chunk);
    if (text) monitor.serverStderr(text);
  });

  // Signals meant for the server (Ctrl-C, a client stopping us, a closed terminal) go to its
  // whole tree as SIGTERM; we exit with its status once it is gone.
  const stopListening = onStopSignals(() => void signalTree(pid, "SIGTERM"));

  const status = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve) => child.once("close", (code, signal) => resolve({ code, signal })),
  );
  stopListening();
  stdin.off("data", onInput);
  stdin.off("end", onInputEnd);
  stdin.pause();
  stdin.destroy();
  monitor.dispose();
  relay?.close();
  record({ t: now(), exit: status });
  await new Promise<void>((resolve) => recording.end(resolve));
  await terminateLeftovers(pid, 1000);
  untrackTree(pid);
  if (status.code !== null) return status.code;
  const signalNumber = status.signal ? constants.signals[status.signal] : undefined;
  return signalNumber === undefined ? 1 : 128 + signalNumber;
}

/** Opens the recording (see openOwnFile: it holds every message of the session, tokens too). */
async function openRecording(out: string): Promise<WriteStream> {
  const file = await openOwnFile(out);
  const stream = createWriteStream("", { fd: file });
  // A full disk must not crash the proxy the client depends on: say so once, keep relaying.
  stream.once("error", (error) => {
    writeErr(`mcpwire tap: cannot write ${out}: ${error.message}`);
    stream.on("error", () => {});
  });
  return stream;
}
