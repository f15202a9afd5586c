/**
 * `--otel` for every verb: the OpenTelemetry SDK set up from the standard `OTEL_*` variables
 * (mcpwire/otel loads it on demand), the connection instrumented, and every span and metric
 * flushed before the command exits, Ctrl-C included. A one-shot verb runs in one root span and
 * prints its trace id on stderr, so the user can find the server's side of it; a verb that runs
 * until stopped (shell, gateway, tap) traces each request on its own. Loaded only with --otel.
 */
import { type CommandTelemetry, startCommandTelemetry } from "../../otel/command-trace.js";
import { NETWORK_TRANSPORT } from "../../otel/conventions.js";
import { otelClientMiddleware, otelServerMiddleware } from "../../otel/middleware.js";
import { RelayTracer } from "../../otel/relay.js";
import { OtelSetupError } from "../../otel/sdk.js";
import { recordClientSession } from "../../otel/session.js";
import { otelTaskRuns } from "../../otel/task-runs.js";
import { CliError } from "./errors.js";
import { setInstrumentation } from "./instrumentation.js";
import { writeErr } from "./terminal.js";

/** Verbs that run until stopped: no root span for hours of unrelated requests. */
const LONG_RUNNING: ReadonlySet<string> = new Set(["shell", "gateway", "tap", "replay"]);

export async function startCliTelemetry(verb: string): Promise<CommandTelemetry> {
  try {
    const telemetry = await startCommandTelemetry({
      serviceName: "mcpwire",
      ...(LONG_RUNNING.has(verb) ? {} : { rootSpan: `mcpwire ${verb}` }),
    });
    setInstrumentation({
      client: otelClientMiddleware(),
      server: otelServerMiddleware(),
      clientSession: recordClientSession,
      relay: () => new RelayTracer({ transport: NETWORK_TRANSPORT.pipe }),
      taskRuns: otelTaskRuns(),
    });
    if (telemetry.traceId !== undefined) writeErr(`mcpwire: trace ${telemetry.traceId}`);
    return telemetry;
  } catch (error) {
    if (error instanceof OtelSetupError) throw new CliError(`--otel: ${error.message}`, 1);
    throw error;
  }
}
