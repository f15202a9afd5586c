import type { McpClient } from "../client/mcp-client.js";
import { InputRequiredError } from "../client/results.js";
import { isPlainObject, JsonRpcError, LocalError } from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import { type OptionKind, type ParsedArgs, parseArgs } from "./args.js";
import { CliError, UsageError } from "./errors.js";
import { inputHandlers } from "./input-answers.js";
import { ProgressReporter } from "./progress.js";
import { exitCodeFor, onStopSignals, type StopSignal } from "./stop-signals.js";
import {
  CONNECTION_OPTIONS,
  type ConnectionSettings,
  connectionSettings,
  openClient,
  splitTarget,
  type Target,
} from "./target.js";

/** What a verb's body gets once its client is connected. */
export interface VerbContext {
  client: McpClient;
  target: Target;
  settings: ConnectionSettings;
  /** The verb's own positional arguments (the target removed). */
  args: string[];
  options: ParsedArgs["options"];
  /** Aborted by Ctrl-C: pass it to the request so the server is told to stop. */
  signal: AbortSignal;
  progress: ProgressReporter;
}

export function logLine(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * Runs a verb that talks to one server: parses the common options and the target, connects,
 * runs `body`, and closes the connection whatever happens. Ctrl-C, SIGTERM or SIGHUP aborts the
 * request in flight (McpClient then tells the server: `notifications/cancelled`, or a closed HTTP
 * stream) and the command exits with 128 + the signal (130 for Ctrl-C); a second one exits at once.
 */
export async function runWithClient(
  argv: readonly string[],
  usage: string,
  extraOptions: Record<string, OptionKind>,
  body: (context: VerbContext) => Promise<number>,
): Promise<number> {
  const parsed = parseArgs(argv, { ...CONNECTION_OPTIONS, ...extraOptions });
  if (parsed.options.help === true) {
    process.stdout.write(usage);
    return 0;
  }
  const settings = connectionSettings(parsed.options);
  const { target, rest } = splitTarget(parsed);
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const stop = (signal: StopSignal): void => {
    // A second signal means "now": the exit hook still kills the stdio server's tree.
    if (stoppedBy !== undefined) process.exit(exitCodeFor(signal));
    stoppedBy = signal;
    const why = signal === "SIGINT" ? "Ctrl-C" : signal;
    controller.abort(new LocalError("aborted", `interrupted (${why})`));
  };
  const stopListening = onStopSignals(stop);
  const interrupted = () => exitCodeFor(stoppedBy ?? "SIGINT");
  const progress = new ProgressReporter();
  let client: McpClient | undefined;
  try {
    client = await openClient(target, settings, {
      log: logLine,
      handlers: inputHandlers(parsed.options),
      signal: controller.signal,
      onNotification: (method, params) => printNotification(method, params),
    });
    if (controller.signal.aborted) return interrupted();
    return await body({
      client,
      target,
      settings,
      args: rest,
      options: parsed.options,
      signal: controller.signal,
      progress,
    });
  } catch (error) {
    if (controller.signal.aborted) return interrupted();
    throw explain(error);
  } finally {
    progress.done();
    await client?.close().catch(() => {});
    stopListening();
  }
}

/** Log messages and other notifications a request brings along, as plain lines on stderr. */
function printNotification(method: string, params: JsonObject): void {
  if (method === "notifications/message") {
    const logger = typeof params.logger === "string" ? ` ${params.logger}` : "";
    const data = typeof params.data === "string" ? params.data : JSON.stringify(params.data);
    logLine(`[${String(params.level)}${logger}] ${data}`);
  }
}

/** Turns what went wrong into the one line the user sees. */
export function explain(error: unknown): Error {
  if (error instanceof CliError) return error;
  if (error instanceof InputRequiredError) {
    const requests = isPlainObject(error.result.inputRequests) ? error.result.inputRequests : {};
    const methods = Object.values(requests)
      .map((request) => (isPlainObject(request) ? String(request.method) : "?"))
      .join(", ");
    // The handlers answer elicitation and sampling (or say why not); what is left is roots.
    const hint = methods.includes("roots/list") ? "; give the roots with --root <uri>" : "";
    return new CliError(
      `${error.method}: the server asked for input (${methods || "unknown"}), which mcpwire ` +
        `does not answer here (not interactive)${hint}`,
    );
  }
  if (error instanceof JsonRpcError) {
    // Roots are declared only with --root; a server that needs them says the capability is missing.
    const hint = /capabilit.*roots/i.test(error.message)
      ? "; give the roots with --root <uri>"
      : "";
    return new CliError(`server error ${error.code}: ${error.message}${hint}`);
  }
  if (error instanceof LocalError) return new CliError(error.message);
  if (error instanceof Error) return new CliError(error.message);
  return new CliError(String(error));
}

/** Checks a verb got between `min` and `max` arguments of its own. */
export function expectArgs(args: string[], min: number, max: number, usage: string): void {
  if (args.length < min || args.length > max) {
    throw new UsageError(`wrong number of arguments; usage: ${usage}`);
  }
}

/** Options for the one request a verb makes: Ctrl-C cancels it, progress is shown. */
export function requestOptions(context: VerbContext) {
  return {
    signal: context.signal,
    onProgress: context.progress.report,
    // A server that reports progress is alive: let it run past --timeout while it does.
    resetTimeoutOnProgress: true,
  };
}
