/**
 * The echo server's `--otel` modes, for issue 28's bench rows. "api": mcpwire/otel's middleware
 * with no provider registered (what a library user pays before setting OpenTelemetry up).
 * "memory": the SDK registered as an application would (AsyncLocalStorage context, W3C
 * propagators, batched spans, a meter provider), exporting spans to memory that is emptied every
 * second, so the run measures recording and batching, not a growing array.
 */
import type { McpServer } from "mcpwire/server";

export async function traceServer(server: McpServer, mode: string): Promise<void> {
  const { otelServerMiddleware } = await import("mcpwire/otel");
  if (mode === "memory") await registerInMemorySdk(true);
  // The same without the AsyncLocalStorage context manager: what async context tracking costs.
  else if (mode === "memory-no-context") await registerInMemorySdk(false);
  else if (mode !== "api")
    throw new Error(`--otel takes api, memory or memory-no-context, not ${mode}`);
  server.use(otelServerMiddleware());
}

async function registerInMemorySdk(withContext: boolean): Promise<void> {
  const { context, metrics, propagation, trace } = await import("@opentelemetry/api");
  const { AsyncLocalStorageContextManager } = await import("@opentelemetry/context-async-hooks");
  const { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } = await import(
    "@opentelemetry/core"
  );
  const { BatchSpanProcessor, InMemorySpanExporter, TracerProvider } = await import(
    "@opentelemetry/sdk-trace"
  );
  const { MeterProvider, MetricReader } = await import("@opentelemetry/sdk-metrics");
  class HeldReader extends MetricReader {
    protected override async onShutdown(): Promise<void> {}
    protected override async onForceFlush(): Promise<void> {}
  }
  const exporter = new InMemorySpanExporter();
  setInterval(() => exporter.reset(), 1000).unref();
  if (withContext) context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  );
  trace.setGlobalTracerProvider(
    new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter })] }),
  );
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new HeldReader()] }));
}
