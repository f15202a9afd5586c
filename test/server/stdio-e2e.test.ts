/**
 * The example server (McpServer + serveStdio) as a real subprocess, driven with raw
 * newline-delimited JSON-RPC written to its stdin: no client library between the test and the
 * bytes, so what is asserted is exactly what goes over the wire.
 */
import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { JsonObject, JsonRpcId } from "../../src/jsonrpc/types.js";
import { LEGACY_VERSIONS } from "../../src/protocol/versions.js";
import { until } from "../helpers/poll.js";

const SERVER = fileURLToPath(new URL("../../examples/stdio-server.js", import.meta.url));
/** The session's default shutdown grace: how long in-flight handlers get after end of input. */
const SHUTDOWN_GRACE_MS = 2_000;

function modernMeta(extra: JsonObject = {}): JsonObject {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "raw-test", version: "1" },
    ...extra,
  };
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The example server plus everything it wrote, line by line, and a way to write to it. */
class RawServer {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every complete stdout line, parsed; a line that is not JSON-RPC fails the test later. */
  readonly messages: JsonObject[] = [];
  readonly badLines: string[] = [];
  readonly exited: Promise<Exit>;
  stderr = "";
  private partial = "";

  constructor() {
    this.child = spawn(process.execPath, [SERVER], { stdio: ["pipe", "pipe", "pipe"] });
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => resolve({ code, signal }));
    });
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => this.onStdout(chunk));
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      this.stderr += chunk;
    });
  }

  send(message: JsonObject): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  }

  /** Sends a request and waits for the response with its id. */
  async request(id: JsonRpcId, method: string, params?: JsonObject): Promise<JsonObject> {
    this.send(params === undefined ? { id, method } : { id, method, params });
    return this.waitFor((message) => message.id === id && !("method" in message));
  }

  async waitFor(match: (message: JsonObject) => boolean): Promise<JsonObject> {
    let found: JsonObject | undefined;
    await until(() => {
      found = this.messages.find(match);
      return found !== undefined;
    }, "a matching message on stdout");
    return found!;
  }

  /** Asserts stdout carried nothing but whole JSON-RPC lines. */
  assertPureStdout(): void {
    assert.deepEqual(this.badLines, [], "stdout carries only JSON-RPC");
    assert.equal(this.partial, "", "stdout ends with a complete line");
    for (const message of this.messages) assert.equal(message.jsonrpc, "2.0");
  }

  /** Kills the server if a failed test left it running. */
  async dispose(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill("SIGKILL");
    }
    await this.exited;
  }

  private onStdout(chunk: string): void {
    const lines = (this.partial + chunk).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) {
      try {
        const parsed: unknown = JSON.parse(line);
        if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
          this.messages.push(parsed as JsonObject);
        } else {
          this.badLines.push(line);
        }
      } catch {
        this.badLines.push(line);
      }
    }
  }
}

async function withServer(body: (server: RawServer) => Promise<void>): Promise<void> {
  const server = new RawServer();
  try {
    await body(server);
  } finally {
    await server.dispose();
  }
}

describe("example stdio server, raw JSON-RPC over a real subprocess", () => {
  it("serves a modern request with _meta, with progress before the result", () =>
    withServer(async (server) => {
      const discovered = await server.request(1, "server/discover", { _meta: modernMeta() });
      const discover = discovered.result as JsonObject;
      assert.deepEqual(discover.supportedVersions, ["2026-07-28", ...LEGACY_VERSIONS]);
      assert.equal(discover.resultType, "complete");

      const echoed = await server.request(2, "tools/call", {
        name: "echo",
        arguments: { text: "raw" },
        _meta: modernMeta(),
      });
      assert.deepEqual(echoed.result, {
        content: [{ type: "text", text: "raw" }],
        resultType: "complete",
        _meta: {
          "io.modelcontextprotocol/serverInfo": { name: "mcpwire-example-stdio", version: "1.0.0" },
        },
      });

      const counted = await server.request(3, "tools/call", {
        name: "slow_count",
        arguments: { n: 3 },
        _meta: modernMeta({ progressToken: "count-3" }),
      });
      assert.equal((counted.result as JsonObject).resultType, "complete");
      // Everything for request 3 was written before its response, progress in order.
      const answeredAt = server.messages.indexOf(counted);
      const progress = server.messages
        .slice(0, answeredAt)
        .filter((message) => message.method === "notifications/progress")
        .map((message) => message.params as JsonObject);
      assert.deepEqual(
        progress.map((params) => [params.progressToken, params.progress, params.total]),
        [
          ["count-3", 1, 3],
          ["count-3", 2, 3],
          ["count-3", 3, 3],
        ],
      );
      // No logLevel in the request's _meta: a modern server sends no log notifications.
      assert.equal(
        server.messages.some((message) => message.method === "notifications/message"),
        false,
      );

      const bare = await server.request(4, "tools/list", {});
      assert.equal((bare.error as JsonObject).code, -32602, "a request without _meta is refused");
      server.assertPureStdout();
    }));

  it("serves a legacy initialize, then tools/call on the session", () =>
    withServer(async (server) => {
      const initialized = await server.request(1, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw-test", version: "1" },
      });
      const init = initialized.result as JsonObject;
      assert.equal(init.protocolVersion, "2025-06-18");
      assert.deepEqual(init.serverInfo, { name: "mcpwire-example-stdio", version: "1.0.0" });
      assert.ok((init.capabilities as JsonObject).logging, "legacy capabilities include logging");
      server.send({ method: "notifications/initialized" });

      const added = await server.request(2, "tools/call", {
        name: "add",
        arguments: { a: 40, b: 2 },
      });
      assert.deepEqual(added.result, {
        content: [{ type: "text", text: "42" }],
        structuredContent: { sum: 42 },
      });
      const pinged = await server.request(3, "ping");
      assert.deepEqual(pinged.result, {});
      server.assertPureStdout();
    }));

  it("sends a handler's console.log to stderr and keeps stdout pure JSON-RPC", () =>
    withServer(async (server) => {
      const noisy = await server.request(1, "tools/call", {
        name: "noisy",
        arguments: {},
        _meta: modernMeta(),
      });
      assert.deepEqual((noisy.result as JsonObject).content, [
        { type: "text", text: "made some noise on stderr" },
      ]);
      await until(
        () => server.stderr.includes("noisy: console.info from a tool handler"),
        "the handler's console output on stderr",
      );
      assert.match(server.stderr, /noisy: console\.log from a tool handler/);
      server.child.stdin.end();
      assert.deepEqual(await server.exited, { code: 0, signal: null });
      server.assertPureStdout();
      assert.equal(server.messages.length, 1, "the response is all stdout ever carried");
    }));

  it("exits promptly on stdin EOF, answering an in-flight request first", () =>
    withServer(async (server) => {
      // slow_count to 100 would run for about 2 s; EOF must cut it short, not wait it out.
      server.send({
        id: 1,
        method: "tools/call",
        params: {
          name: "slow_count",
          arguments: { n: 100 },
          _meta: modernMeta({ progressToken: 1 }),
        },
      });
      await server.waitFor((message) => message.method === "notifications/progress");
      const endedAt = Date.now();
      server.child.stdin.end();
      const exit = await server.exited;
      const elapsed = Date.now() - endedAt;
      assert.deepEqual(exit, { code: 0, signal: null });
      // Not a performance figure: finishing under the grace shows the handler was aborted and
      // the server closed because it was done, rather than because the grace timer expired.
      assert.ok(elapsed < SHUTDOWN_GRACE_MS, `exited ${elapsed} ms after EOF`);
      const reply = server.messages.find((message) => message.id === 1);
      assert.ok(reply, "the in-flight request was answered before exit");
      assert.equal((reply.error as JsonObject).code, -32603);
      assert.match(String((reply.error as JsonObject).message), /shutting down/);
      server.assertPureStdout();
    }));

  it("exits on stdin EOF straight away when idle", () =>
    withServer(async (server) => {
      await server.request(1, "tools/list", { _meta: modernMeta() });
      server.child.stdin.end();
      assert.deepEqual(await server.exited, { code: 0, signal: null });
      server.assertPureStdout();
      assert.doesNotMatch(server.stderr, /mcpwire server:/, "no errors reported");
    }));

  it("exits cleanly on SIGTERM when idle", () =>
    withServer(async (server) => {
      await server.request(1, "tools/list", { _meta: modernMeta() });
      server.child.kill("SIGTERM");
      // A graceful exit (code 0), not death by the signal (code null, signal SIGTERM).
      assert.deepEqual(await server.exited, { code: 0, signal: null });
      server.assertPureStdout();
    }));

  it("exits cleanly on SIGTERM with a request in flight, answering it first", () =>
    withServer(async (server) => {
      await server.request(1, "tools/call", {
        name: "echo",
        arguments: { text: "before" },
        _meta: modernMeta(),
      });
      server.send({
        id: 2,
        method: "tools/call",
        params: { name: "slow_count", arguments: { n: 100 }, _meta: modernMeta() },
      });
      // Wait until request 2 is surely running: a later request's answer proves it was read.
      await server.request(3, "tools/list", { _meta: modernMeta() });
      server.child.kill("SIGTERM");
      assert.deepEqual(await server.exited, { code: 0, signal: null });
      const reply = server.messages.find((message) => message.id === 2);
      assert.match(String((reply?.error as JsonObject | undefined)?.message), /shutting down/);
      server.assertPureStdout();
    }));
});
