/**
 * startOtelSdk exports over OTLP/HTTP as the standard variables say, in both encodings, and its
 * shutdown flushes: a child process observes one operation, exits, and the receiver on
 * 127.0.0.1 has the span (trace id as the child saw it, CLIENT kind, attributes) and the metric.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { otelSdkPackages } from "../../src/otel/sdk.js";
import { type OtlpReceiver, startOtlpReceiver } from "../helpers/otlp-receiver.js";

const run = promisify(execFile);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const CHILD = join(dirname(fileURLToPath(import.meta.url)), "../fixtures/otel-sdk-child.js");

let receiver: OtlpReceiver;
before(async () => {
  receiver = await startOtlpReceiver();
});
after(() => receiver.close());

async function exportWith(env: Record<string, string>): Promise<string> {
  const { stdout } = await run(process.execPath, [CHILD], {
    env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, ...env },
    timeout: 30_000,
  });
  return stdout.trim();
}

describe("startOtelSdk", () => {
  for (const protocol of ["http/protobuf", "http/json"]) {
    it(`exports spans and metrics over ${protocol} and flushes on shutdown`, async () => {
      const traceId = await exportWith({ OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
      assert.match(traceId, /^[0-9a-f]{32}$/);
      const span = receiver.spans.find((candidate) => candidate.traceId === traceId);
      assert.ok(span, `span of trace ${traceId} received`);
      assert.equal(span.name, "tools/call echo");
      assert.equal(span.kind, 3, "CLIENT");
      assert.equal(span.service, "otel-sdk-child");
      assert.equal(span.attributes["mcp.method.name"], "tools/call");
      assert.equal(span.attributes["jsonrpc.request.id"], "1");
      assert.ok(receiver.metricNames.has("mcp.client.operation.duration"));
      const type = protocol === "http/json" ? "application/json" : "application/x-protobuf";
      assert.ok(receiver.requests.includes(`/v1/traces ${type}`), receiver.requests.join(", "));
      assert.ok(receiver.requests.includes(`/v1/metrics ${type}`), receiver.requests.join(", "));
    });
  }

  it("takes service.name from OTEL_SERVICE_NAME over the default", async () => {
    const traceId = await exportWith({
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "named-by-env",
    });
    assert.equal(receiver.spans.find((span) => span.traceId === traceId)?.service, "named-by-env");
  });

  it("names the SDK packages at the versions it is tested with (package.json's devDependencies)", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    const named = [...otelSdkPackages("http/protobuf"), ...otelSdkPackages("http/json")];
    assert.equal(new Set(named).size, 10, "six common packages and two exporters per encoding");
    for (const spec of named) {
      const at = spec.lastIndexOf("@");
      assert.equal(manifest.devDependencies[spec.slice(0, at)], spec.slice(at + 1), spec);
    }
    assert.ok(otelSdkPackages("http/json").every((spec) => !spec.includes("-otlp-proto")));
  });

  it("refuses a protocol it cannot speak, naming the ones it can", async () => {
    await assert.rejects(exportWith({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }), (error: Error) => {
      assert.match(
        error.message,
        /OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported here; use http\/protobuf or http\/json/,
      );
      return true;
    });
  });
});
