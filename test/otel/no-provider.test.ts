/**
 * With `@opentelemetry/api` present but no provider registered, nothing happens: no tracer, no
 * instruments, `run` called as it is. Registering a provider later is noticed on the next
 * operation (the metrics API has no proxy, so instruments are remade then).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { context, trace } from "@opentelemetry/api";
import { instruments } from "../../src/otel/instruments.js";
import { observeOperation } from "../../src/otel/operation.js";
import { installTestTelemetry } from "../helpers/otel-sdk.js";

describe("no provider registered", () => {
  it("has no tracer and no histograms, and runs the operation in the ambient context", async () => {
    const found = instruments();
    assert.equal(found.tracer, undefined);
    assert.equal(found.clientOperation, undefined);
    assert.equal(found.serverSession, undefined);
    const ambient = context.active();
    const result = await observeOperation(
      "server",
      { method: "ping", requestId: 1 },
      async (propagate) => {
        assert.equal(propagate, ambient);
        assert.equal(trace.getActiveSpan(), undefined);
        return { ok: true };
      },
    );
    assert.deepEqual(result, { ok: true });
  });

  it("notices a provider registered afterwards, and one taken away", async () => {
    const telemetry = installTestTelemetry();
    assert.ok(instruments().tracer);
    assert.ok(instruments().clientOperation);
    await observeOperation("client", { method: "ping", requestId: 2 }, async () => ({}));
    assert.deepEqual(
      telemetry.spans().map((span) => span.name),
      ["ping"],
    );
    await telemetry.shutdown();
    assert.equal(instruments().tracer, undefined);
    assert.equal(instruments().clientOperation, undefined);
  });
});
