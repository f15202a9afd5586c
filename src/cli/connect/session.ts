import type { McpClient } from "../../client/index.js";
import { InputRequiredError } from "../../client/results.js";
import { isPlainObject, JsonRpcError, LocalError } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import { ignoring } from "../../text/ignored-error.js";
import { printableLine } from "../../text/printable.js";
import { AuthorizationError } from "../../transports/http/client/auth.js";
import { type OptionKind, type ParsedArgs, parseArgs } from "../core/args.js";
import { CliError, UsageError } from "../core/errors.js";
import { jsonText, writeErr, writeOut } from "../core/terminal.js";
import { inputHandlers } from "./input-answers.js";
import { ProgressReporter } from "./progress.js";
import { describeExit, serverExit } from "./server-exit.js";
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

/** A diagnostic line on stderr (made printable: it often quotes the peer). */
export function logLine(line: string): void {
  writeErr(line);
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
    writeOut(usage);
    return 0;
  }
  const settings = connectionSettings(parsed.options);
  const { target, rest } = await splitTarget(parsed);
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
    await client?.close().catch(ignoring("closing the connection"));
    stopListening();
  }
}

/** Log messages and other notifications a request brings along, as plain lines on stderr. */
function printNotification(method: string, params: JsonObject): void {
  if (method === "notifications/message") logLine(renderLogMessage(params));
}

/** A `notifications/message` as one line: `[level logger] data`, every part printable. */
export function renderLogMessage(params: JsonObject): string {
  const logger = typeof params.logger === "string" ? ` ${printableLine(params.logger)}` : "";
  const data = typeof params.data === "string" ? params.data : jsonText(params.data);
  return `[${printableLine(String(params.level))}${logger}] ${printableLine(data)}`;
}

/**
 * Turns what went wrong into the line the user sees (and, when a stdio server died, the lines
 * it last wrote to stderr). Whatever the peer put in a message is made printable here.
 */
export function explain(error: unknown): CliError {
  if (error instanceof CliError) return error;
  // Said best by itself, wherever a transport wrapped it (a 401 explained, a failed OAuth step).
  const inner = causeIn(
    error,
    (cause) => cause instanceof CliError || cause instanceof AuthorizationError,
  );
  if (inner instanceof CliError) return inner;
  if (inner instanceof AuthorizationError) {
    return new CliError(describe(inner), 1, authorizationHints(inner));
  }
  if (inner !== undefined) return new CliError(describe(inner));
  const exit = serverExit(error);
  if (exit) {
    const { message, stderr } = describeExit(exit);
    if (exit === error) return new CliError(message, 1, stderr);
    return new CliError(describe(error), 1, [message, ...stderr]);
  }
  return new CliError(describe(error));
}

/** What to try after an authorization server's refusal that leaves a person stuck. */
function authorizationHints(error: AuthorizationError): string[] {
  switch (error.serverError) {
    case "invalid_client":
      return [
        "hint: check --client-id and its secret (--client-secret or MCPWIRE_CLIENT_SECRET); a client mcpwire registered is registered again by mcpwire auth login",
      ];
    case "invalid_scope":
    case "access_denied":
      return [
        'hint: if the authorization server wants scopes, name them: --scope "<scope> …" (the scopes_supported of its metadata lists them)',
      ];
    default:
      return [];
  }
}

function describe(error: unknown): string {
  if (error instanceof InputRequiredError) {
    const requests = isPlainObject(error.result.inputRequests) ? error.result.inputRequests : {};
    const methods = Object.values(requests)
      .map((request) => (isPlainObject(request) ? printableLine(String(request.method)) : "?"))
      .join(", ");
    // The handlers answer elicitation and sampling (or say why not); what is left is roots.
    const hint = methods.includes("roots/list") ? "; give the roots with --root <uri>" : "";
    return (
      `${error.method}: the server asked for input (${methods || "unknown"}), which mcpwire ` +
      `does not answer here (not interactive)${hint}`
    );
  }
  if (error instanceof JsonRpcError) {
    // Roots are declared only with --root; a server that needs them says the capability is missing.
    const hint = /capabilit.*roots/i.test(error.message)
      ? "; give the roots with --root <uri>"
      : "";
    return `server error ${printableLine(String(error.code))}: ${printableLine(error.message)}${hint}`;
  }
  // Local errors may span lines (the first is the summary); each line is made printable.
  if (error instanceof Error) return error.message.split("\n").map(printableLine).join("\n");
  return printableLine(String(error));
}

function causeIn(error: unknown, wanted: (cause: unknown) => boolean): unknown {
  let current = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (wanted(current)) return current;
    current = current.cause;
  }
  return undefined;
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
