/**
 * One MCP operation observed by the conventions: a span (CLIENT for the sender, SERVER for the
 * receiver) around it and its duration recorded in the side's histogram. The client and server
 * middleware are thin adapters over `observeOperation`.
 */
import {
  type Attributes,
  type Context,
  context,
  type Link,
  type Span,
  type SpanContext,
  SpanKind,
  trace,
} from "@opentelemetry/api";
import {
  type CaptureOptions,
  type OperationFacts,
  spanName,
  startAttributes,
} from "./attributes.js";
import { ATTR, OPERATION_METRIC_ATTRIBUTES } from "./conventions.js";
import { instruments } from "./instruments.js";
import { errorOutcome, type Outcome, resultOutcome } from "./outcome.js";
import { extractReceived } from "./propagation.js";

type Side = "client" | "server";

/** What a receiver knows about where the trace context came from. */
interface ReceivedCarriers {
  /** The request's `_meta`. */
  meta?: Record<string, unknown> | undefined;
  /** One header of the HTTP request it came in, when it came over HTTP. */
  header?: ((name: string) => string | undefined) | undefined;
}

const NO_LINKS: Link[] = [];

function metricAttributes(span: Attributes, capture: CaptureOptions | undefined): Attributes {
  const kept: Attributes = {};
  for (const key of OPERATION_METRIC_ATTRIBUTES) {
    const value = span[key];
    if (value !== undefined) kept[key] = value;
  }
  if (capture?.resourceUriInNames && span[ATTR.resourceUri] !== undefined) {
    kept[ATTR.resourceUri] = span[ATTR.resourceUri];
  }
  return kept;
}

function finish(
  span: Span | undefined,
  outcome: Outcome,
  attributes: Attributes,
  result: unknown,
  capture: CaptureOptions | undefined,
): void {
  Object.assign(attributes, outcome.attributes);
  if (span === undefined) return;
  span.setAttributes(outcome.attributes);
  if (outcome.status !== undefined) span.setStatus(outcome.status);
  if (
    capture?.toolPayloads &&
    outcome.status === undefined &&
    attributes[ATTR.methodName] === "tools/call" &&
    result !== undefined
  ) {
    span.setAttribute(ATTR.toolCallResult, JSON.stringify(result));
  }
  span.end();
}

/**
 * Runs `run` inside the operation's span and records its duration. `run` receives the context
 * to propagate (the span's, or the ambient one when no tracer is registered); on the client
 * side it writes that into the outgoing `_meta`. With no provider registered at all, `run` is
 * called as it is and nothing else happens.
 */
export function observeOperation<R>(
  side: Side,
  facts: OperationFacts,
  run: (propagate: Context) => Promise<R>,
  options?: {
    capture?: CaptureOptions;
    received?: ReceivedCarriers;
    /** Client side: the parent when the ambient context has no span (a previous round's). */
    fallbackParent?: SpanContext | undefined;
    /** Client side: told the span's context and the result, once the operation succeeded. */
    settled?: (span: SpanContext | undefined, result: R) => void;
  },
): Promise<R> {
  const { tracer, clientOperation, serverOperation } = instruments();
  const histogram = side === "client" ? clientOperation : serverOperation;
  if (tracer === undefined && histogram === undefined) return run(context.active());

  const capture = options?.capture;
  const startedAt = performance.now();
  const attributes = startAttributes(facts, side, capture);
  let parent: Context;
  let links = NO_LINKS;
  if (side === "server") {
    const received = extractReceived(options?.received?.meta, options?.received?.header);
    parent = received.parent;
    links = received.links;
  } else {
    parent = context.active();
    const fallback = options?.fallbackParent;
    if (fallback !== undefined && trace.getSpanContext(parent) === undefined) {
      parent = trace.setSpanContext(parent, fallback);
    }
  }
  const span = tracer?.startSpan(
    spanName(facts, capture),
    { kind: side === "client" ? SpanKind.CLIENT : SpanKind.SERVER, attributes, links },
    parent,
  );
  const inside = span === undefined ? parent : trace.setSpan(parent, span);
  const done = (outcome: Outcome, result: unknown) => {
    // A client's request id is known only once the request went out, after the span began.
    if (attributes[ATTR.requestId] === undefined && facts.requestId !== undefined) {
      const id = String(facts.requestId);
      attributes[ATTR.requestId] = id;
      span?.setAttribute(ATTR.requestId, id);
    }
    finish(span, outcome, attributes, result, capture);
    histogram?.record(
      (performance.now() - startedAt) / 1000,
      metricAttributes(attributes, capture),
    );
  };
  const failed = (error: unknown): never => {
    done(errorOutcome(error, side), undefined);
    throw error;
  };
  let pending: Promise<R>;
  try {
    pending = context.with(inside, run, undefined, inside);
  } catch (error) {
    return Promise.reject(error).catch(failed);
  }
  // Chained, not awaited: with the SDK's AsyncLocalStorage context manager on Node 20 every
  // promise runs async hooks, and an async function adds its own per operation.
  return pending.then((result) => {
    done(resultOutcome(facts.method, result), result);
    options?.settled?.(span?.spanContext(), result);
    return result;
  }, failed);
}
