/**
 * The tracer and the four duration histograms, looked up from the API's global providers.
 * The metrics API has no proxy (a meter taken before a provider is registered stays a no-op
 * forever), so instruments are remade whenever the global meter provider changes; the check
 * is one comparison per operation. `active()` tells whether anything is registered at all, so
 * that with no provider an operation costs next to nothing.
 */
import {
  createNoopMeter,
  type Histogram,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { DURATION_BUCKETS, INSTRUMENTATION_SCOPE, METRIC, METRIC_UNIT } from "./conventions.js";

interface Instruments {
  /** Undefined when no tracer provider is registered. */
  tracer: Tracer | undefined;
  /** Undefined when no meter provider is registered. */
  clientOperation: Histogram | undefined;
  serverOperation: Histogram | undefined;
  clientSession: Histogram | undefined;
  serverSession: Histogram | undefined;
}

/** The API's no-op meter class (NoopMeterProvider hands out one of these). */
const NoopMeter = createNoopMeter().constructor;
/** The no-op tracer provider a ProxyTracerProvider delegates to until one is registered. */
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

const DESCRIPTIONS = {
  clientOperation:
    "The duration of an MCP request or notification as the sender sees it, until the response or ack.",
  serverOperation:
    "The duration of an MCP request or notification as the receiver sees it, until the result or ack is sent.",
  clientSession: "The duration of an MCP session as the client sees it.",
  serverSession: "The duration of an MCP session as the server sees it.",
};

let seenTracerProvider: TracerProvider | undefined;
let seenMeterProvider: MeterProvider | undefined;
let current: Instruments = {
  tracer: undefined,
  clientOperation: undefined,
  serverOperation: undefined,
  clientSession: undefined,
  serverSession: undefined,
};

function tracerOf(provider: TracerProvider): Tracer | undefined {
  const real = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
  return real === NOOP_TRACER_PROVIDER ? undefined : real.getTracer(INSTRUMENTATION_SCOPE);
}

function histogramsOf(provider: MeterProvider): Omit<Instruments, "tracer"> {
  const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
  if (meter instanceof NoopMeter) {
    return {
      clientOperation: undefined,
      serverOperation: undefined,
      clientSession: undefined,
      serverSession: undefined,
    };
  }
  const histogram = (name: string, description: string) =>
    meter.createHistogram(name, {
      description,
      unit: METRIC_UNIT,
      advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
    });
  return {
    clientOperation: histogram(METRIC.clientOperationDuration, DESCRIPTIONS.clientOperation),
    serverOperation: histogram(METRIC.serverOperationDuration, DESCRIPTIONS.serverOperation),
    clientSession: histogram(METRIC.clientSessionDuration, DESCRIPTIONS.clientSession),
    serverSession: histogram(METRIC.serverSessionDuration, DESCRIPTIONS.serverSession),
  };
}

/** Whether anything would record an operation of `side` (a tracer, or that side's histogram). */
export function recording(side: "client" | "server"): boolean {
  const found = instruments();
  if (found.tracer !== undefined) return true;
  return (side === "client" ? found.clientOperation : found.serverOperation) !== undefined;
}

/** Whether anything would record an operation of either side (one look at the providers). */
export function recordingAnything(): boolean {
  const found = instruments();
  return (
    found.tracer !== undefined ||
    found.clientOperation !== undefined ||
    found.serverOperation !== undefined
  );
}

/** The instruments for the providers registered now. */
export function instruments(): Instruments {
  const tracerProvider = trace.getTracerProvider();
  const meterProvider = metrics.getMeterProvider();
  if (tracerProvider !== seenTracerProvider || meterProvider !== seenMeterProvider) {
    seenTracerProvider = tracerProvider;
    seenMeterProvider = meterProvider;
    current = { tracer: tracerOf(tracerProvider), ...histogramsOf(meterProvider) };
  }
  // A ProxyTracerProvider is the same object before and after registration; its delegate is
  // what changes, so look again while it has none.
  if (current.tracer === undefined && tracerProvider instanceof ProxyTracerProvider) {
    const tracer = tracerOf(tracerProvider);
    if (tracer !== undefined) current = { ...current, tracer };
  }
  return current;
}
