/**
 * End to end, across processes, exporting over OTLP/HTTP to a receiver on 127.0.0.1:
 * `mcpwire call --otel` against the everything example with `--otel`, over Streamable HTTP and
 * over stdio, and through `mcpwire gateway --otel`. Each run is one trace: the command's root
 * span, its CLIENT span, the server's SERVER span as that span's child (and through the
 * gateway, the gateway's SERVER and CLIENT spans between them). The trace id the command prints
 * on stderr is the one the server's side is under.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SERVER_EVERYTHING } from "../cli/gateway-run.js";
import {
  CLI,
  EVERYTHING_SERVER,
  listeningAddress,
  type Running,
  runCli,
  startCli,
  startProcess,
  stop,
} from "../cli/run-cli.js";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from "../helpers/otlp-receiver.js";

const INTERNAL = 1;
const SERVER = 2;
const CLIENT = 3;

let receiver: OtlpReceiver;
before(async () => {
  receiver = await startOtlpReceiver();
});
after(() => receiver.close());

/** The OTEL_* variables of one process; spans leave at once rather than in 5 s batches. */
function otelEnv(service: string, protocol: "http/json" | "http/protobuf"): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_SERVICE_NAME: service,
    OTEL_BSP_SCHEDULE_DELAY: "50",
  };
}

/** `--env` flags passing our OTEL_* variables on to a stdio child, named "child". */
function childEnv(env: Record<string, string>): string[] {
  return Object.keys(env).flatMap((name) =>
    name === "OTEL_SERVICE_NAME" ? ["--env", `${name}=child`] : ["--env", name],
  );
}

function traceIdFrom(stderr: string): string {
  const id = /^mcpwire: trace ([0-9a-f]{32})$/m.exec(stderr)?.[1];
  assert.ok(id, `a trace id on stderr: ${stderr}`);
  return id;
}

function spansOf(traceId: string): ReceivedSpan[] {
  return receiver.spans.filter((span) => span.traceId === traceId);
}

function one(
  spans: ReceivedSpan[],
  test: (span: ReceivedSpan) => boolean,
  what: string,
): ReceivedSpan {
  const found = spans.filter(test);
  assert.equal(
    found.length,
    1,
    `one ${what} among ${spans.map((span) => `${span.name}@${span.service}`).join(", ")}`,
  );
  return found[0]!;
}

/** The command's root span and CLIENT span for tools/call, checked; returns the CLIENT span. */
function commandSide(spans: ReceivedSpan[]): ReceivedSpan {
  const root = one(spans, (span) => span.name === "mcpwire call", "root span");
  assert.equal(root.parentSpanId, "");
  assert.equal(root.service, "cli");
  const client = one(
    spans,
    (span) =>
      span.kind === CLIENT &&
      span.service === "cli" &&
      span.attributes["mcp.method.name"] === "tools/call",
    "CLIENT tools/call span of the command",
  );
  assert.equal(client.name, "tools/call test_simple_text");
  assert.equal(client.parentSpanId, root.spanId);
  return client;
}

/**
 * `mcpwire call --otel test_simple_text` against the everything example over stdio, started
 * behind `wrapper` (a command that runs it, such as tap); returns the trace id it printed.
 */
async function callOverStdio(wrapper: string[]): Promise<string> {
  const env = otelEnv("cli", "http/json");
  const server = [process.execPath, EVERYTHING_SERVER, "--stdio", "--otel"];
  // A stdio server gets only an allowlist of our environment: pass on the OTEL_* ones.
  const args = [
    "call",
    "--otel",
    ...childEnv(env),
    "test_simple_text",
    "--",
    ...wrapper,
    ...server,
  ];
  const run = await runCli(args, { env });
  assert.equal(run.code, 0, run.stderr);
  return traceIdFrom(run.stderr);
}

describe("mcpwire call --otel and the everything example --otel, over OTLP/HTTP", {
  timeout: 120_000,
}, () => {
  it("over Streamable HTTP: one trace, the CLIENT span parent of the SERVER span", async () => {
    const server: Running = startProcess(
      process.execPath,
      [EVERYTHING_SERVER, "--http", "--port", "0", "--otel"],
      {
        env: otelEnv("everything", "http/json"),
      },
    );
    try {
      const url = await listeningAddress(server, "stdout");
      const run = await runCli(["call", "--otel", url, "test_simple_text"], {
        env: otelEnv("cli", "http/protobuf"),
      });
      assert.equal(run.code, 0, run.stderr);
      const traceId = traceIdFrom(run.stderr);
      await receiver.until(
        () =>
          spansOf(traceId).some(
            (span) =>
              span.service === "everything" &&
              span.kind === SERVER &&
              span.attributes["mcp.method.name"] === "tools/call",
          ),
        `the server's tools/call span in trace ${traceId}`,
      );
      const spans = spansOf(traceId);
      const client = commandSide(spans);
      const serverSpan = one(
        spans,
        (span) =>
          span.service === "everything" &&
          span.kind === SERVER &&
          span.attributes["mcp.method.name"] === "tools/call",
        "SERVER tools/call span",
      );
      assert.equal(serverSpan.name, "tools/call test_simple_text");
      assert.equal(serverSpan.parentSpanId, client.spanId);
      assert.equal(serverSpan.attributes["network.transport"], "tcp");
      assert.equal(
        serverSpan.attributes["jsonrpc.request.id"],
        client.attributes["jsonrpc.request.id"],
      );
    } finally {
      await stop(server);
    }
    // The server flushed its metrics on the way out.
    await receiver.until(
      () => receiver.metricNames.has("mcp.server.operation.duration"),
      "server metrics",
    );
    assert.ok(receiver.metricNames.has("mcp.client.operation.duration"));
    // The command's client closed before the flush: its session is recorded too.
    assert.ok(receiver.metricNames.has("mcp.client.session.duration"));
  });

  it("over stdio: the child server's span continues the command's trace", async () => {
    const traceId = await callOverStdio([]);
    await receiver.until(
      () =>
        spansOf(traceId).some(
          (span) => span.kind === SERVER && span.attributes["mcp.method.name"] === "tools/call",
        ),
      `the child's tools/call span in trace ${traceId}`,
    );
    const spans = spansOf(traceId);
    const client = commandSide(spans);
    const child = one(
      spans,
      (span) => span.kind === SERVER && span.attributes["mcp.method.name"] === "tools/call",
      "SERVER span",
    );
    assert.equal(child.parentSpanId, client.spanId);
    assert.equal(child.attributes["network.transport"], "pipe");
    assert.equal(client.attributes["network.transport"], "pipe");
  });

  it("Ctrl-C: the command still flushes its spans, the interrupted call an error", async () => {
    const server: Running = startProcess(process.execPath, [
      EVERYTHING_SERVER,
      "--http",
      "--port",
      "0",
    ]);
    try {
      const url = await listeningAddress(server, "stdout");
      const command = startCli(["call", "--otel", "--verbose", url, "slow_compute", "seconds=60"], {
        env: otelEnv("cli", "http/json"),
      });
      // --verbose shows the request going out: from then on Ctrl-C interrupts the call.
      await receiver.until(() => /-> .*"tools\/call"/.test(command.stderr()), "the call to go out");
      command.child.kill("SIGINT");
      const run = await command.done;
      assert.equal(run.code, 130, run.stderr);
      const traceId = traceIdFrom(run.stderr);
      const spans = spansOf(traceId);
      const root = one(spans, (span) => span.name === "mcpwire call", "root span");
      assert.equal(root.attributes["process.exit.code"], 130);
      const client = one(
        spans,
        (span) => span.kind === CLIENT && span.name === "tools/call slow_compute",
        "CLIENT span",
      );
      assert.equal(client.attributes["error.type"], "aborted");
    } finally {
      await stop(server);
    }
  });

  it("through mcpwire gateway --otel: the command, the gateway and its child share one trace", async () => {
    const gatewayEnv = otelEnv("gateway", "http/protobuf");
    const gateway = startCli(
      [
        "gateway",
        "--otel",
        "--listen",
        "127.0.0.1:0",
        ...childEnv(gatewayEnv),
        "--",
        process.execPath,
        EVERYTHING_SERVER,
        "--stdio",
        "--otel",
      ],
      { env: gatewayEnv },
    );
    try {
      const url = await listeningAddress(gateway, "stderr");
      const run = await runCli(["call", "--otel", url, "test_simple_text"], {
        env: otelEnv("cli", "http/json"),
      });
      assert.equal(run.code, 0, run.stderr);
      const traceId = traceIdFrom(run.stderr);
      const isCall = (span: ReceivedSpan) => span.attributes["mcp.method.name"] === "tools/call";
      await receiver.until(
        () => spansOf(traceId).filter(isCall).length >= 4,
        `four tools/call spans in trace ${traceId}`,
      );
      const spans = spansOf(traceId);
      const client = commandSide(spans);
      const gatewayServer = one(
        spans,
        (span) => span.service === "gateway" && span.kind === SERVER && isCall(span),
        "gateway SERVER span",
      );
      const gatewayClient = one(
        spans,
        (span) => span.service === "gateway" && span.kind === CLIENT && isCall(span),
        "gateway CLIENT span",
      );
      const child = one(
        spans,
        (span) =>
          span.service !== "gateway" &&
          span.service !== "cli" &&
          span.kind === SERVER &&
          isCall(span),
        "child SERVER span",
      );
      assert.equal(gatewayServer.parentSpanId, client.spanId);
      assert.equal(gatewayClient.parentSpanId, gatewayServer.spanId);
      assert.equal(child.parentSpanId, gatewayClient.spanId);
    } finally {
      await stop(gateway);
    }
  });

  it("through mcpwire gateway --otel: a task the gateway runs for its child is a trace of its own, linked to the call", async () => {
    // The official everything server speaks 2025-11-25 tasks; our command, the extension: the
    // gateway bridges the two with a task of its own, whose run outlives the call that made it.
    const gatewayEnv = otelEnv("gateway", "http/json");
    const gateway = startCli(
      [
        "gateway",
        "--otel",
        "--listen",
        "127.0.0.1:0",
        "--",
        process.execPath,
        ...SERVER_EVERYTHING,
      ],
      { env: gatewayEnv },
    );
    try {
      const url = await listeningAddress(gateway, "stderr");
      const run = await runCli(
        ["call", "--otel", url, "simulate-research-query", '{"topic":"tides"}'],
        { env: otelEnv("cli", "http/json") },
      );
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /Research Report: tides/);
      const traceId = traceIdFrom(run.stderr);
      const name = "tools/call simulate-research-query";
      const isRun = (span: ReceivedSpan) =>
        span.service === "gateway" && span.kind === INTERNAL && span.name === name;
      await receiver.until(() => receiver.spans.some(isRun), "the task's run span");
      const creating = one(
        spansOf(traceId),
        (span) => span.service === "gateway" && span.kind === SERVER && span.name === name,
        "gateway SERVER span of the call",
      );
      const taskRun = one(receiver.spans, isRun, "task run span");
      assert.equal(taskRun.parentSpanId, "");
      assert.notEqual(taskRun.traceId, traceId);
      assert.equal(typeof taskRun.attributes["mcp.task.id"], "string");
      assert.equal(taskRun.attributes["gen_ai.tool.name"], "simulate-research-query");
      assert.deepEqual(taskRun.links, [{ traceId, spanId: creating.spanId }]);
      // The run's own call to the child is in the run's trace.
      await receiver.until(
        () => spansOf(taskRun.traceId).some((span) => span.kind === CLIENT),
        "the run's CLIENT span to the child",
      );
      const toChild = spansOf(taskRun.traceId).filter(
        (span) => span.kind === CLIENT && span.attributes["mcp.method.name"] === "tools/call",
      );
      assert.equal(toChild.length, 1, "one tools/call to the child under the run");
      assert.equal(toChild[0]?.parentSpanId, taskRun.spanId);
    } finally {
      await stop(gateway);
    }
  });

  it("through mcpwire tap --otel: the tap's span and the child's are both children of the CLIENT span", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mcpwire-tap-otel-"));
    try {
      const tap = [process.execPath, CLI, "tap", "--otel", "--out", join(dir, "session.ndjson")];
      const traceId = await callOverStdio(tap);
      const isCall = (span: ReceivedSpan) => span.attributes["mcp.method.name"] === "tools/call";
      // The tap and its child (both service "child", from the --env flags) each add a SERVER
      // span under the command's CLIENT span: the tap forwards the bytes untouched.
      await receiver.until(
        () => spansOf(traceId).filter((span) => span.kind === SERVER && isCall(span)).length >= 2,
        `the tap's and the child's tools/call spans in trace ${traceId}`,
      );
      const spans = spansOf(traceId);
      const client = commandSide(spans);
      const servers = spans.filter((span) => span.kind === SERVER && isCall(span));
      assert.equal(servers.length, 2, servers.map((span) => span.name).join(", "));
      for (const span of servers) {
        assert.equal(span.parentSpanId, client.spanId);
        assert.equal(span.name, "tools/call test_simple_text");
        assert.equal(span.attributes["network.transport"], "pipe");
        assert.equal(
          span.attributes["jsonrpc.request.id"],
          client.attributes["jsonrpc.request.id"],
        );
      }
      // The handshake crossed the tap too.
      assert.ok(
        spansOf(traceId).some(
          (span) =>
            span.kind === SERVER && span.attributes["mcp.method.name"] === "server/discover",
        ),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
