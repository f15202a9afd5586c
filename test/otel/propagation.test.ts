/**
 * W3C trace context through `_meta` and the HTTP `traceparent` header, by the API's registered
 * propagators: what the sender writes, and which context the receiver takes as parent and links.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import {
  context,
  propagation,
  ROOT_CONTEXT,
  type TextMapPropagator,
  TraceFlags,
  trace,
} from "@opentelemetry/api";
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from "@opentelemetry/core";
import { extractReceived, injectIntoMeta } from "../../src/otel/propagation.js";
import { installTestTelemetry } from "../helpers/otel-sdk.js";

const telemetry = installTestTelemetry();
after(() => telemetry.shutdown());

const META_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const META_SPAN = "00f067aa0ba902b7";
const HEADER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const HEADER_SPAN = "b7ad6b7169203331";

function remote(traceId: string, spanId: string) {
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
}

describe("trace context in _meta", () => {
  it("writes traceparent (and baggage) into a copy of _meta, keeping the other keys", () => {
    const baggage = propagation.createBaggage({ user: { value: "alice" } });
    const from = propagation.setBaggage(remote(META_TRACE, META_SPAN), baggage);
    const meta = { progressToken: 1, traceparent: "00-stale-stale-00" };
    const written = injectIntoMeta(meta, from);
    assert.deepEqual(written, {
      progressToken: 1,
      traceparent: `00-${META_TRACE}-${META_SPAN}-01`,
      baggage: "user=alice",
    });
    assert.equal(meta.traceparent, "00-stale-stale-00", "the caller's object is left alone");
  });

  it("writes nothing when there is no span, returning _meta itself", () => {
    const meta = { progressToken: 1 };
    assert.equal(injectIntoMeta(meta, ROOT_CONTEXT), meta);
    assert.equal(injectIntoMeta(undefined, ROOT_CONTEXT), undefined);
  });

  it("keeps a propagator's other fields off the wire", () => {
    const noisy: TextMapPropagator = {
      inject: (_context, carrier, setter) => setter.set(carrier, "x-b3-traceid", "abc"),
      extract: (from) => from,
      fields: () => ["x-b3-traceid"],
    };
    propagation.disable();
    propagation.setGlobalPropagator(
      new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), noisy] }),
    );
    try {
      const written = injectIntoMeta({}, remote(META_TRACE, META_SPAN));
      assert.deepEqual(Object.keys(written ?? {}), ["traceparent"]);
    } finally {
      propagation.disable();
      propagation.setGlobalPropagator(
        new CompositePropagator({
          propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
        }),
      );
    }
  });
});

describe("the receiver's parent and links", () => {
  const metaCarrier = { traceparent: `00-${META_TRACE}-${META_SPAN}-01`, baggage: "user=bob" };
  const received = new Headers({ traceparent: `00-${HEADER_TRACE}-${HEADER_SPAN}-01` });
  const headers = (name: string) => received.get(name) ?? undefined;

  it("takes _meta first and links the HTTP header's context", () => {
    const { parent, links } = extractReceived(metaCarrier, headers, ROOT_CONTEXT);
    assert.equal(trace.getSpanContext(parent)?.traceId, META_TRACE);
    assert.equal(trace.getSpanContext(parent)?.spanId, META_SPAN);
    assert.equal(propagation.getBaggage(parent)?.getEntry("user")?.value, "bob");
    assert.deepEqual(
      links.map((link) => [link.context.traceId, link.context.spanId]),
      [[HEADER_TRACE, HEADER_SPAN]],
    );
  });

  it("falls back to the header when _meta has none (or an invalid one)", () => {
    for (const meta of [undefined, {}, { traceparent: "00-zzzz-yyyy-01" }]) {
      const { parent, links } = extractReceived(meta, headers, ROOT_CONTEXT);
      assert.equal(trace.getSpanContext(parent)?.spanId, HEADER_SPAN);
      assert.deepEqual(links, []);
    }
  });

  it("links the ambient context when _meta gives the parent, and not twice", () => {
    const ambient = remote(HEADER_TRACE, "1111111111111111");
    const { links } = extractReceived(metaCarrier, headers, ambient);
    assert.deepEqual(
      links.map((link) => link.context.spanId),
      [HEADER_SPAN, "1111111111111111"],
    );
    const same = extractReceived(metaCarrier, undefined, remote(META_TRACE, META_SPAN));
    assert.deepEqual(same.links, [], "the parent itself is no link");
  });

  it("with nothing received, the ambient context is the parent", () => {
    const ambient = remote(HEADER_TRACE, "2222222222222222");
    const { parent, links } = context.with(ambient, () => extractReceived(undefined, undefined));
    assert.equal(trace.getSpanContext(parent)?.spanId, "2222222222222222");
    assert.deepEqual(links, []);
  });
});
