/**
 * Telemetry for one run of a command (`mcpwire call --otel`, the everything example with
 * `--otel`): the SDK started from the `OTEL_*` variables and, for a one-shot command, one root
 * span around all of it, so that the handshake and the request it makes are one trace whose id
 * the user can look up. `finish()` ends the span and flushes everything before the process exits.
 */
import { context, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import { INSTRUMENTATION_SCOPE } from "./conventions.js";
import { type OtelSdkOptions, startOtelSdk } from "./sdk.js";

export interface CommandTelemetry {
  /** The root span's trace id; undefined for a long-running command (no root span). */
  readonly traceId: string | undefined;
  /** Runs the command inside the root span (when there is one). */
  run<T>(command: () => Promise<T>): Promise<T>;
  /** Ends the root span with the exit code, then flushes and stops the SDK. */
  finish(exitCode: number): Promise<void>;
}

/**
 * Starts the SDK. `rootSpan` names the span a one-shot command runs in (`mcpwire call`); leave
 * it out for a server or proxy that runs until stopped, whose requests are traces of their own.
 */
export async function startCommandTelemetry(
  options: OtelSdkOptions & { rootSpan?: string },
): Promise<CommandTelemetry> {
  const sdk = await startOtelSdk(options);
  let root: Span | undefined;
  if (options.rootSpan !== undefined) {
    root = trace.getTracer(INSTRUMENTATION_SCOPE).startSpan(options.rootSpan);
  }
  const traceId = root?.spanContext().traceId;
  return {
    traceId,
    run(command) {
      if (root === undefined) return command();
      return context.with(trace.setSpan(context.active(), root), command);
    },
    async finish(exitCode) {
      if (root !== undefined) {
        root.setAttribute("process.exit.code", exitCode);
        if (exitCode !== 0) root.setStatus({ code: SpanStatusCode.ERROR });
        root.end();
      }
      await sdk.shutdown();
    },
  };
}
