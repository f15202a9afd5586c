/**
 * A small OTLP/HTTP receiver on 127.0.0.1 for end-to-end tests: it accepts what an OTLP
 * exporter POSTs to /v1/traces and /v1/metrics, in `http/json` or `http/protobuf`, and keeps the
 * spans (ids, name, kind, attributes) and metric names it decoded. Protobuf is read with a
 * minimal wire-format walker over the few fields a test looks at (OTLP's trace.proto and
 * metrics.proto field numbers), not a full decoder.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** service.name of the resource that sent it. */
  service: string | undefined;
  /** The spans it links to. */
  links: { traceId: string; spanId: string }[];
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:PORT`, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  spans: ReceivedSpan[];
  metricNames: Set<string>;
  /** Content types seen, per path ("/v1/traces application/json"). */
  requests: string[];
  /** Resolves once `condition` holds; rejects after `timeoutMs` naming what arrived. */
  until(condition: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Largest body accepted: a test exports a handful of spans. */
const MAX_BODY = 4 * 1024 * 1024;

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metricNames = new Set<string>();
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    readBody(request)
      .then((body) => {
        const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim() ?? "";
        requests.push(`${request.url} ${type}`);
        const json = type === "application/json";
        if (request.url === "/v1/traces") {
          spans.push(
            ...(json ? jsonSpans(JSON.parse(body.toString("utf8"))) : protobufSpans(body)),
          );
        } else if (request.url === "/v1/metrics") {
          const names = json
            ? jsonMetricNames(JSON.parse(body.toString("utf8")))
            : protobufMetricNames(body);
          for (const name of names) metricNames.add(name);
        } else {
          response.writeHead(404).end();
          return;
        }
        // An empty ExportServiceResponse means "all accepted" in both encodings.
        response.writeHead(200, {
          "content-type": json ? "application/json" : "application/x-protobuf",
        });
        response.end(json ? "{}" : "");
      })
      .catch((error: Error) => {
        response.writeHead(400, { "content-type": "text/plain" }).end(error.message);
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    metricNames,
    requests,
    async until(condition, what, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!condition()) {
        if (Date.now() > deadline) {
          const seen = spans.map((span) => `${span.name} (${span.service})`).join(", ");
          throw new Error(`OTLP receiver: no ${what} in time; spans so far: ${seen || "none"}`);
        }
        await delay(20);
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

// --- http/json -------------------------------------------------------------------------------

interface JsonKeyValue {
  key: string;
  value: {
    stringValue?: string;
    intValue?: string | number;
    boolValue?: boolean;
    doubleValue?: number;
  };
}

function jsonAttributes(
  list: JsonKeyValue[] | undefined,
): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
  }
  return out;
}

// biome-ignore lint/suspicious/noExplicitAny: OTLP JSON, read loosely.
function jsonSpans(body: any): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of body.resourceSpans ?? []) {
    const service = jsonAttributes(resourceSpans.resource?.attributes)["service.name"];
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        out.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? "",
          name: span.name,
          kind: span.kind,
          attributes: jsonAttributes(span.attributes),
          service: service === undefined ? undefined : String(service),
          // biome-ignore lint/suspicious/noExplicitAny: OTLP JSON, read loosely.
          links: (span.links ?? []).map((link: any) => ({
            traceId: link.traceId,
            spanId: link.spanId,
          })),
        });
      }
    }
  }
  return out;
}

// biome-ignore lint/suspicious/noExplicitAny: OTLP JSON, read loosely.
function jsonMetricNames(body: any): string[] {
  const names: string[] = [];
  for (const resourceMetrics of body.resourceMetrics ?? []) {
    for (const scopeMetrics of resourceMetrics.scopeMetrics ?? []) {
      for (const metric of scopeMetrics.metrics ?? []) names.push(metric.name);
    }
  }
  return names;
}

// --- http/protobuf ---------------------------------------------------------------------------

type Field = { number: number; varint?: bigint; bytes?: Buffer; fixed?: Buffer };

/** The top-level fields of one protobuf message. */
function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    let shift = 0n;
    for (;;) {
      if (at >= buffer.length) throw new Error("truncated varint");
      const byte = buffer[at++] as number;
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
      shift += 7n;
    }
  };
  while (at < buffer.length) {
    const key = Number(varint());
    const number = key >>> 3;
    switch (key & 7) {
      case 0:
        out.push({ number, varint: varint() });
        break;
      case 1:
        out.push({ number, fixed: buffer.subarray(at, at + 8) });
        at += 8;
        break;
      case 2: {
        const length = Number(varint());
        out.push({ number, bytes: buffer.subarray(at, at + length) });
        at += length;
        break;
      }
      case 5:
        out.push({ number, fixed: buffer.subarray(at, at + 4) });
        at += 4;
        break;
      default:
        throw new Error(`unsupported wire type ${key & 7}`);
    }
  }
  return out;
}

const messages = (buffer: Buffer, number: number): Buffer[] =>
  fields(buffer)
    .filter((field) => field.number === number && field.bytes !== undefined)
    .map((field) => field.bytes as Buffer);

const text = (buffer: Buffer, number: number): string =>
  messages(buffer, number)[0]?.toString("utf8") ?? "";

const hex = (buffer: Buffer, number: number): string =>
  messages(buffer, number)[0]?.toString("hex") ?? "";

/** KeyValue (key = 1, value = 2: AnyValue with string 1, bool 2, int 3, double 4). */
function protobufAttributes(list: Buffer[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const keyValue of list) {
    const key = text(keyValue, 1);
    const value = messages(keyValue, 2)[0];
    if (value === undefined) continue;
    for (const field of fields(value)) {
      if (field.number === 1 && field.bytes) out[key] = field.bytes.toString("utf8");
      else if (field.number === 2 && field.varint !== undefined) out[key] = field.varint !== 0n;
      else if (field.number === 3 && field.varint !== undefined)
        out[key] = Number(BigInt.asIntN(64, field.varint));
      else if (field.number === 4 && field.fixed) out[key] = field.fixed.readDoubleLE(0);
    }
  }
  return out;
}

/** ExportTraceServiceRequest: resource_spans 1 > (resource 1, scope_spans 2 > spans 2). */
function protobufSpans(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of messages(body, 1)) {
    const resource = messages(resourceSpans, 1)[0];
    const service = resource
      ? protobufAttributes(messages(resource, 1))["service.name"]
      : undefined;
    for (const scopeSpans of messages(resourceSpans, 2)) {
      for (const span of messages(scopeSpans, 2)) {
        const kind = fields(span).find((field) => field.number === 6)?.varint ?? 0n;
        out.push({
          traceId: hex(span, 1),
          spanId: hex(span, 2),
          parentSpanId: hex(span, 4),
          name: text(span, 5),
          kind: Number(kind),
          attributes: protobufAttributes(messages(span, 9)),
          service: service === undefined ? undefined : String(service),
          // Span.links = 13, each a Link (trace_id 1, span_id 2).
          links: messages(span, 13).map((link) => ({
            traceId: hex(link, 1),
            spanId: hex(link, 2),
          })),
        });
      }
    }
  }
  return out;
}

/** ExportMetricsServiceRequest: resource_metrics 1 > scope_metrics 2 > metrics 2 > name 1. */
function protobufMetricNames(body: Buffer): string[] {
  const names: string[] = [];
  for (const resourceMetrics of messages(body, 1)) {
    for (const scopeMetrics of messages(resourceMetrics, 2)) {
      for (const metric of messages(scopeMetrics, 2)) names.push(text(metric, 1));
    }
  }
  return names;
}
