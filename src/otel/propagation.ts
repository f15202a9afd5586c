/**
 * W3C trace context across the wire, through the API's configured propagator (never a parser of
 * our own). The sender writes it into `params._meta` (`traceparent`, `tracestate`, `baggage`:
 * the only unprefixed keys the 2026-07-28 revision allows there); the HTTP client binding copies
 * `traceparent` into a header too. The receiver takes its parent from `_meta` first, then from
 * the HTTP header, and links whatever else it knows (the conventions: MCP and transport contexts
 * are independent, and links keep the transport's).
 */
import {
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type SpanContext,
  type TextMapGetter,
  type TextMapSetter,
  trace,
} from "@opentelemetry/api";
import type { JsonObject } from "../jsonrpc/types.js";
import { TRACE_META_KEYS } from "./conventions.js";

const TRACE_KEYS: ReadonlySet<string> = new Set(TRACE_META_KEYS);

/** Writes only the reserved keys; a propagator's other fields (b3, ...) stay off the wire. */
const metaSetter: TextMapSetter<JsonObject> = {
  set(carrier, key, value) {
    if (TRACE_KEYS.has(key)) carrier[key] = value;
  },
};

const metaGetter: TextMapGetter<JsonObject> = {
  keys: (carrier) => Object.keys(carrier).filter((key) => TRACE_KEYS.has(key)),
  get(carrier, key) {
    if (!TRACE_KEYS.has(key)) return undefined;
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
};

/** An HTTP request's headers, read one at a time (the trace context fields only). */
type HeaderReader = (name: string) => string | undefined;

const headerGetter: TextMapGetter<HeaderReader> = {
  keys: () => [...TRACE_META_KEYS],
  get: (read, key) => read(key),
};

/**
 * A copy of `meta` carrying the trace context of `from` (replacing any the caller had put
 * there); `meta` itself is never changed. Returns `meta` as it was when the propagator has
 * nothing to write.
 */
export function injectIntoMeta(
  meta: JsonObject | undefined,
  from: Context,
): JsonObject | undefined {
  const fields: JsonObject = {};
  propagation.inject(from, fields, metaSetter);
  if (Object.keys(fields).length === 0) return meta;
  const copy: JsonObject = { ...meta };
  for (const key of TRACE_META_KEYS) delete copy[key];
  return Object.assign(copy, fields);
}

/** The parent of a receiver's span and the other contexts it links to. */
interface ReceivedContext {
  parent: Context;
  links: Link[];
}

function remoteSpan(from: Context): SpanContext | undefined {
  const span = trace.getSpanContext(from);
  return span !== undefined && trace.isSpanContextValid(span) ? span : undefined;
}

function linkOnce(links: Link[], span: SpanContext | undefined, parent: SpanContext | undefined) {
  if (span === undefined) return;
  if (parent !== undefined && span.traceId === parent.traceId && span.spanId === parent.spanId) {
    return;
  }
  if (links.some((link) => link.context.spanId === span.spanId)) return;
  links.push({ context: span });
}

/**
 * Where a receiver's span hangs: the context in `meta` when it holds a valid span context,
 * else the one in the HTTP headers, else the ambient (active) context. The contexts not chosen
 * are linked, each once.
 */
export function extractReceived(
  meta: JsonObject | undefined,
  header: HeaderReader | undefined,
  ambient: Context = context.active(),
): ReceivedContext {
  const fromMeta =
    meta === undefined ? undefined : propagation.extract(ROOT_CONTEXT, meta, metaGetter);
  const fromHeaders =
    header === undefined ? undefined : propagation.extract(ROOT_CONTEXT, header, headerGetter);
  const metaSpan = fromMeta && remoteSpan(fromMeta);
  const headerSpan = fromHeaders && remoteSpan(fromHeaders);
  const ambientSpan = remoteSpan(ambient);
  const links: Link[] = [];
  if (metaSpan !== undefined) {
    linkOnce(links, headerSpan, metaSpan);
    linkOnce(links, ambientSpan, metaSpan);
    return { parent: fromMeta as Context, links };
  }
  if (headerSpan !== undefined) {
    linkOnce(links, ambientSpan, headerSpan);
    return { parent: fromHeaders as Context, links };
  }
  return { parent: ambient, links };
}
