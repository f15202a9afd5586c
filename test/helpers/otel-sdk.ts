/**
 * The real OpenTelemetry SDK registered globally with in-memory exporters, for tests: spans land
 * in an InMemorySpanExporter as each ends, metrics are collected on demand from a reader. W3C
 * trace context and baggage propagators and an AsyncLocalStorage context manager, as a Node
 * application would register them. node:test runs each file in its own process, so one
 * registration per file is safe.
 */
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from "@opentelemetry/core";
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";

/** A reader that exports nothing by itself: the test calls collect(). */
class OnDemandReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

export interface HistogramPoint {
  name: string;
  unit: string;
  attributes: Record<string, unknown>;
  count: number;
  boundaries: number[];
}

export interface TestTelemetry {
  spans(): ReadableSpan[];
  /** Every histogram data point collected so far (cumulative). */
  histograms(): Promise<HistogramPoint[]>;
  reset(): void;
  shutdown(): Promise<void>;
}

export function installTestTelemetry(options: { metrics?: boolean } = {}): TestTelemetry {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  );
  trace.setGlobalTracerProvider(tracerProvider);
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  if (options.metrics !== false) metrics.setGlobalMeterProvider(meterProvider);
  return {
    spans: () => exporter.getFinishedSpans(),
    async histograms() {
      const { resourceMetrics } = await reader.collect();
      return histogramPoints(resourceMetrics);
    },
    reset: () => exporter.reset(),
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    },
  };
}

function histogramPoints(resourceMetrics: ResourceMetrics): HistogramPoint[] {
  const points: HistogramPoint[] = [];
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      for (const point of metric.dataPoints as DataPoint<Histogram | number>[]) {
        const value = point.value as Histogram;
        points.push({
          name: metric.descriptor.name,
          unit: metric.descriptor.unit,
          attributes: { ...point.attributes },
          count: value.count,
          boundaries: [...value.buckets.boundaries],
        });
      }
    }
  }
  return points;
}
