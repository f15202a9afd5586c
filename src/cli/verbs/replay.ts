import { readFile } from "node:fs/promises";
import { isPlainObject } from "../../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcMessage, JsonRpcResponse } from "../../jsonrpc/types.js";
import { ignoring } from "../../text/ignored-error.js";
import { printableLine } from "../../text/printable.js";
import { StdioClientTransport } from "../../transports/stdio/client.js";
import { childEnvSettings, ENV_OPTIONS, ENV_USAGE } from "../connect/child-env.js";
import { exitCodeFor, onStopSignals, type StopSignal } from "../connect/stop-signals.js";
import { parseArgs } from "../core/args.js";
import { CliError, UsageError } from "../core/errors.js";
import { jsonText, writeErr, writeErrChunk, writeOut } from "../core/terminal.js";
import { diffLines, normaliseReply, pretty } from "./reply-diff.js";

const REPLAY_USAGE = `Usage: mcpwire replay <file> [options] -- <command> [args…]

Replays the client side of a recording made by \`mcpwire tap\` against a fresh server started by
<command>, then shows how the server's replies differ from the recorded ones (ids, key order
and timestamps are ignored). Exit code 0 when every reply is the same, 1 otherwise.

Sequential: the recorded client messages are sent in their recorded order with their recorded
ids; after each request that was answered in the recording, the replay waits for its reply (up
to --timeout) before sending anything else. Requests that went unanswered in the recording (a
cancelled one, say) are sent without waiting and not compared. A request the server sends
(sampling, elicitation, roots on legacy connections) is answered with the next recorded client
answer to a server request of the same method. Notifications from the server are not compared.

Options:
  --timeout <ms>   how long to wait for each reply (default 10000)
  --verbose        the server's stderr, and every message, on stderr
${ENV_USAGE}
`;

/** What the recording says the client did, and how the server answered each request. */
interface Script {
  steps: JsonRpcMessage[];
  /** Index in `steps` of a request → the server's recorded reply. */
  replies: Map<number, JsonRpcResponse>;
  /** Recorded client answers to server requests, by the method of the server's request. */
  answers: Map<string, JsonRpcResponse[]>;
}

export async function runReplay(argv: readonly string[]): Promise<number> {
  const parsed = parseArgs(argv, {
    timeout: "value",
    verbose: "flag",
    help: "flag",
    ...ENV_OPTIONS,
  });
  const { options } = parsed;
  if (options.help === true) {
    writeOut(REPLAY_USAGE);
    return 0;
  }
  const [file, extra] = parsed.positionals;
  if (file === undefined)
    throw new UsageError(
      "replay needs the recording: mcpwire replay session.ndjson -- node server.js",
    );
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
  if (parsed.command === undefined) {
    throw new UsageError(
      "replay needs the server's command after --: mcpwire replay session.ndjson -- node server.js",
    );
  }
  const timeoutMs = options.timeout === undefined ? 10_000 : Number(options.timeout);
  if (!(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw new UsageError("--timeout must be a positive number of milliseconds");
  }
  const verbose = options.verbose === true;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const script = readScript(text, file);
  const childEnv = childEnvSettings(options);
  const [command, ...args] = parsed.command;
  const log = (line: string) => {
    if (verbose) writeErr(line);
  };

  const transport = new StdioClientTransport({
    command: command!,
    args,
    // The same environment allowlist as every other verb: a recording is replayed against a
    // server that need not be trusted with the secrets in our environment.
    env: childEnv.env,
    inheritEnv: childEnv.inheritEnv,
    stderr: "pipe",
    onStderr: verbose ? (chunk) => writeErrChunk(chunk) : undefined,
  });
  const waiters = new Map<JsonRpcId, (reply: JsonRpcResponse | undefined) => void>();
  let gone = false;
  transport.start({
    message: (message) => {
      log(`<- ${jsonText(message)}`);
      if (!("method" in message)) {
        if (message.id !== null) waiters.get(message.id)?.(message);
        return;
      }
      if (!("id" in message) || message.id === undefined) return;
      // The server asks us something: answer as the recorded client did.
      const answer = script.answers.get(message.method)?.shift();
      const reply: JsonRpcResponse = answer
        ? { ...answer, id: message.id }
        : {
            jsonrpc: "2.0",
            id: message.id,
            error: { code: -32601, message: `${message.method} was not answered in the recording` },
          };
      send(reply);
    },
    closed: () => {
      gone = true;
      for (const waiter of [...waiters.values()]) waiter(undefined);
    },
  });
  const send = (message: JsonRpcMessage) => {
    log(`-> ${jsonText(message)}`);
    return transport.send(message).catch(ignoring("replaying a message"));
  };

  // A stop signal ends the replay: what waits gives up, and the server's tree is ended below.
  let stoppedBy: StopSignal | undefined;
  const stopListening = onStopSignals((signal) => {
    if (stoppedBy !== undefined) process.exit(exitCodeFor(signal));
    stoppedBy = signal;
    // The request being waited for is cancelled the protocol's way before the server is closed.
    for (const [requestId, waiter] of [...waiters]) {
      void send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId, reason: `replay stopped (${signal})` },
      });
      waiter(undefined);
    }
    gone = true;
  });

  let compared = 0;
  let differing = 0;
  try {
    for (const [index, step] of script.steps.entries()) {
      if (stoppedBy !== undefined) break;
      const isRequest = "method" in step && "id" in step && step.id !== undefined;
      const expected = script.replies.get(index);
      if (!isRequest || expected === undefined) {
        if (!gone) await send(step);
        continue;
      }
      const got = gone ? undefined : await request(step, timeoutMs);
      if (stoppedBy !== undefined) break;
      compared++;
      const before = pretty(normaliseReply(expected));
      const after = pretty(normaliseReply(got));
      if (before.join("\n") === after.join("\n")) continue;
      differing++;
      const method = (step as { method: string }).method;
      writeOut(
        `reply to request ${compared} (${printableLine(method)}, recorded id ${jsonText(step.id)}) differs:`,
      );
      writeOut(diffLines(before, after).join("\n"));
    }
  } finally {
    await transport.close();
    stopListening();
  }
  if (stoppedBy !== undefined) return exitCodeFor(stoppedBy);
  if (differing === 0) {
    writeOut(`identical: all ${compared} replies match the recording`);
    return 0;
  }
  writeOut(`different: ${differing} of ${compared} replies differ from the recording`);
  return 1;

  function request(step: JsonRpcMessage, waitMs: number): Promise<JsonRpcResponse | undefined> {
    const id = (step as { id: JsonRpcId }).id;
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(undefined), waitMs);
      function finish(reply: JsonRpcResponse | undefined) {
        clearTimeout(timer);
        waiters.delete(id);
        resolve(reply);
      }
      waiters.set(id, finish);
      void send(step);
    });
  }
}

/** The longest line read: the stdio transport's default message limit. */
const MAX_RECORD_CHARS = 32 * 2 ** 20;

/** Reads a tap recording into the client's script; lines that are not records are an error. */
function readScript(text: string, file: string): Script {
  const steps: JsonRpcMessage[] = [];
  const replies = new Map<number, JsonRpcResponse>();
  const answers = new Map<string, JsonRpcResponse[]>();
  /** Client request id → its index in steps, until its reply is seen. */
  const open = new Map<JsonRpcId, number>();
  /** Server request id → its method, until the client's answer is seen. */
  const asked = new Map<JsonRpcId, string>();
  const shown = printableLine(file);
  for (const [number, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const where = `${shown}:${number + 1}`;
    // tap records one message per line; one longer than a message may be is no recording.
    if (line.length > MAX_RECORD_CHARS) {
      throw new CliError(
        `${where} is over ${MAX_RECORD_CHARS / 2 ** 20} MiB: not a tap recording line`,
      );
    }
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      throw new CliError(`${where} is not a tap recording line (not JSON)`);
    }
    // The shape tap writes: {"dir": "c2s"|"s2c", "msg": {...}} (other records, e.g. stderr, skipped).
    if (!isPlainObject(entry) || (entry.msg !== undefined && !isPlainObject(entry.msg))) {
      throw new CliError(`${where} is not a tap recording line (not a record object)`);
    }
    const message = entry.msg as JsonRpcMessage | undefined;
    if (message === undefined || (entry.dir !== "c2s" && entry.dir !== "s2c")) continue;
    const isRequest = "method" in message && "id" in message && message.id !== undefined;
    if (entry.dir === "c2s") {
      if (isRequest) open.set(message.id, steps.length);
      if (!("method" in message) && message.id !== null) {
        const method = asked.get(message.id);
        if (method !== undefined) {
          asked.delete(message.id);
          answers.set(method, [...(answers.get(method) ?? []), message]);
          // Sent when the live server asks, not in sequence.
          continue;
        }
      }
      steps.push(message);
    } else if (isRequest) {
      asked.set(message.id, message.method);
    } else if (!("method" in message) && message.id !== null) {
      const index = open.get(message.id);
      if (index !== undefined) {
        open.delete(message.id);
        replies.set(index, message);
      }
    }
  }
  if (steps.length === 0) throw new CliError(`${file} holds no client messages to replay`);
  return { steps, replies, answers };
}
