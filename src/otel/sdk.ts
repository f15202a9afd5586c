/**
 * Sets up the OpenTelemetry SDK from the standard `OTEL_*` variables, for processes that own
 * their telemetry (the `mcpwire` command's `--otel`, the everything example): OTLP over HTTP
 * (`OTEL_EXPORTER_OTLP_PROTOCOL` `http/protobuf`, the default, or `http/json`) to
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (default http://localhost:4318), `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES` for the resource, W3C trace context and baggage propagation.
 *
 * The SDK packages are not dependencies of mcpwire: they are loaded here, on demand, and a
 * missing one is a clear error naming what to install. A library user who already runs the
 * SDK needs none of this: registering a provider is enough for otelMiddleware.
 */

/** What startOtelSdk hands back: flush and stop before the process exits. */
export interface OtelSdkHandle {
  /** Exports every finished span and the metrics so far. */
  flush(): Promise<void>;
  /** Flushes, then stops the providers and unregisters them. Idempotent. */
  shutdown(): Promise<void>;
}

export interface OtelSdkOptions {
  /** service.name when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names one. */
  serviceName?: string;
  /** Variables to read instead of process.env (the exporters always read process.env). */
  env?: Record<string, string | undefined>;
}

/** The OTLP encodings startOtelSdk can export with (OTEL_EXPORTER_OTLP_PROTOCOL). */
export type OtlpProtocol = "http/protobuf" | "http/json";

/** Thrown when `--otel` cannot start: a package to install, or a setting we cannot honour. */
export class OtelSetupError extends Error {
  override name = "OtelSetupError";
}

/**
 * The SDK line mcpwire is tested with (the same ranges as its devDependencies; a test keeps them
 * equal). The install hint names them: the SDK's packages pin the API within narrow ranges, and
 * unversioned names can resolve to a set npm refuses (API 1.10 with SDK 2.x).
 */
const SDK_VERSIONS: Readonly<Record<string, string>> = {
  "@opentelemetry/api": "~1.9.1",
  "@opentelemetry/core": "^2.12.1",
  "@opentelemetry/context-async-hooks": "^2.12.1",
  "@opentelemetry/resources": "^2.12.1",
  "@opentelemetry/sdk-trace": "^2.12.1",
  "@opentelemetry/sdk-metrics": "^2.12.1",
  "@opentelemetry/exporter-trace-otlp-proto": "^0.223.1",
  "@opentelemetry/exporter-metrics-otlp-proto": "^0.223.0",
  "@opentelemetry/exporter-trace-otlp-http": "^0.223.1",
  "@opentelemetry/exporter-metrics-otlp-http": "^0.223.0",
};

/**
 * What startOtelSdk needs for a protocol, as `npm install` arguments (`name@range`), for the
 * install hint and the docs.
 */
export function otelSdkPackages(protocol: OtlpProtocol = "http/protobuf"): string[] {
  const exporter = protocol === "http/json" ? "http" : "proto";
  return Object.entries(SDK_VERSIONS)
    .filter(([name]) => !name.includes("-otlp-") || name.endsWith(`-otlp-${exporter}`))
    .map(([name, range]) => `${name}@${range}`);
}

function protocolFrom(
  env: Record<string, string | undefined>,
  signal: "TRACES" | "METRICS",
): OtlpProtocol {
  const value = (
    env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    "http/protobuf"
  ).trim();
  if (value === "http/protobuf" || value === "http/json") return value;
  throw new OtelSetupError(
    `OTEL_EXPORTER_OTLP_PROTOCOL=${value} is not supported here; use http/protobuf or http/json`,
  );
}

/** "otlp" (default), "console" or "none", as OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER say. */
function exporterKind(
  env: Record<string, string | undefined>,
  name: string,
): "otlp" | "console" | "none" {
  const value = (env[name] ?? "otlp").trim();
  if (value === "otlp" || value === "console" || value === "none") return value;
  throw new OtelSetupError(`${name}=${value} is not supported here; use otlp, console or none`);
}

function isMissingModule(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}

/** Imports the SDK's packages, or says in one line which to install. */
async function load(packages: string[]) {
  try {
    const [api, core, asyncHooks, resources, sdkTrace, sdkMetrics] = await Promise.all([
      import("@opentelemetry/api"),
      import("@opentelemetry/core"),
      import("@opentelemetry/context-async-hooks"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/sdk-trace"),
      import("@opentelemetry/sdk-metrics"),
    ]);
    return { api, core, asyncHooks, resources, sdkTrace, sdkMetrics };
  } catch (error) {
    if (!isMissingModule(error)) throw error;
    throw new OtelSetupError(
      `OpenTelemetry is not installed; to use --otel, run: npm install ${packages.join(" ")}`,
      { cause: error },
    );
  }
}

async function loadExporters(protocol: OtlpProtocol, packages: string[]) {
  try {
    if (protocol === "http/json") {
      const [traces, metrics] = await Promise.all([
        import("@opentelemetry/exporter-trace-otlp-http"),
        import("@opentelemetry/exporter-metrics-otlp-http"),
      ]);
      return {
        TraceExporter: traces.OTLPTraceExporter,
        MetricExporter: metrics.OTLPMetricExporter,
      };
    }
    const [traces, metrics] = await Promise.all([
      import("@opentelemetry/exporter-trace-otlp-proto"),
      import("@opentelemetry/exporter-metrics-otlp-proto"),
    ]);
    return { TraceExporter: traces.OTLPTraceExporter, MetricExporter: metrics.OTLPMetricExporter };
  } catch (error) {
    if (!isMissingModule(error)) throw error;
    throw new OtelSetupError(
      `The OTLP exporter for ${protocol} is not installed; run: npm install ${packages.join(" ")}`,
      { cause: error },
    );
  }
}

/**
 * Registers a tracer provider, a meter provider, the W3C propagators and an AsyncLocalStorage
 * context manager globally, exporting over OTLP/HTTP as the `OTEL_*` variables say.
 */
export async function startOtelSdk(options: OtelSdkOptions = {}): Promise<OtelSdkHandle> {
  const env = options.env ?? process.env;
  const tracesKind = exporterKind(env, "OTEL_TRACES_EXPORTER");
  const metricsKind = exporterKind(env, "OTEL_METRICS_EXPORTER");
  const tracesProtocol = protocolFrom(env, "TRACES");
  const metricsProtocol = protocolFrom(env, "METRICS");
  const { api, core, asyncHooks, resources, sdkTrace, sdkMetrics } = await load(
    otelSdkPackages(tracesProtocol),
  );

  const detected = resources.detectResources({ detectors: [resources.envDetector] });
  const named = detected.attributes["service.name"] !== undefined;
  const resource = resources
    .defaultResource()
    .merge(
      named || options.serviceName === undefined
        ? null
        : resources.resourceFromAttributes({ "service.name": options.serviceName }),
    )
    .merge(detected);

  const spanProcessors = [];
  if (tracesKind === "otlp") {
    const { TraceExporter } = await loadExporters(tracesProtocol, otelSdkPackages(tracesProtocol));
    spanProcessors.push(new sdkTrace.BatchSpanProcessor({ exporter: new TraceExporter() }));
  } else if (tracesKind === "console") {
    spanProcessors.push(
      new sdkTrace.SimpleSpanProcessor({ exporter: new sdkTrace.ConsoleSpanExporter() }),
    );
  }
  const readers = [];
  if (metricsKind !== "none") {
    const exporter =
      metricsKind === "console"
        ? new sdkMetrics.ConsoleMetricExporter()
        : new (
            await loadExporters(metricsProtocol, otelSdkPackages(metricsProtocol))
          ).MetricExporter();
    const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
    readers.push(
      new sdkMetrics.PeriodicExportingMetricReader({
        exporter,
        ...(Number.isFinite(interval) && interval > 0 ? { exportIntervalMillis: interval } : {}),
      }),
    );
  }

  const tracerProvider = new sdkTrace.TracerProvider({ resource, spanProcessors });
  const meterProvider = new sdkMetrics.MeterProvider({ resource, readers });
  const contextManager = new asyncHooks.AsyncLocalStorageContextManager().enable();
  api.context.setGlobalContextManager(contextManager);
  api.propagation.setGlobalPropagator(
    new core.CompositePropagator({
      propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()],
    }),
  );
  api.trace.setGlobalTracerProvider(tracerProvider);
  api.metrics.setGlobalMeterProvider(meterProvider);

  let stopped: Promise<void> | undefined;
  return {
    async flush() {
      await Promise.all([tracerProvider.forceFlush(), meterProvider.forceFlush()]);
    },
    shutdown() {
      stopped ??= (async () => {
        // Shutdown flushes first; a collector that is down must not keep the process alive,
        // and the exporters' own timeouts (OTEL_EXPORTER_OTLP_TIMEOUT) bound each export.
        await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
        api.trace.disable();
        api.metrics.disable();
        api.propagation.disable();
        api.context.disable();
      })();
      return stopped;
    },
  };
}
