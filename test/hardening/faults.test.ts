/**
 * Fault injection against real peers: a stdio server killed with SIGKILL mid-call under the
 * supervisor, a stdio server frozen with SIGSTOP, and an HTTP server that dies mid-stream and
 * comes back on the same port. In every case the caller gets a clean local failure, nothing
 * hangs, and the next call works.
 */
import assert from "node:assert/strict";
import { type AddressInfo, connect } from "node:net";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { JsonRpcError, LocalError } from "../../src/jsonrpc/errors.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/types.js";
import type { SendOptions, Transport, TransportReceiver } from "../../src/protocol/transport.js";
import { McpServer } from "../../src/server/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { serveHttp } from "../../src/transports/http/node-adapter.js";
import { listenSocket } from "../../src/transports/socket/index.js";
import { StdioClientTransport } from "../../src/transports/stdio/client.js";
import { SupervisedStdioTransport } from "../../src/transports/stdio/supervisor.js";
import { until } from "../helpers/poll.js";
import { isAlive } from "../helpers/stdio-rpc.js";
import { EXAMPLE_SERVER, MODERN_META, RawStdioServer } from "./raw-stdio.js";

const clientInfo = { name: "faults", version: "0" };

function text(result: { content: unknown[] }): string | undefined {
  return (result.content[0] as { text?: string }).text;
}

/** Passes everything through and records what the client sent. */
class RecordingTransport implements Transport {
  readonly sent: JsonRpcMessage[] = [];
  constructor(readonly inner: Transport) {}
  get closed() {
    return this.inner.closed;
  }
  start(receiver: TransportReceiver): void {
    this.inner.start(receiver);
  }
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    this.sent.push(message);
    return this.inner.send(message, options);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Resolves on the first progress notification, so a fault lands mid-call. */
function firstProgress() {
  let resolve!: () => void;
  const started = new Promise<void>((r) => {
    resolve = r;
  });
  return { started, onProgress: () => resolve() };
}

describe("fault injection", { timeout: 60_000 }, () => {
  it("kill -9 of a supervised stdio server mid-call: the call rejects at once, restart and retry work", async () => {
    const transport = new SupervisedStdioTransport({
      command: process.execPath,
      args: [EXAMPLE_SERVER],
      restart: { initialDelayMs: 50 },
    });
    const client = new McpClient({ clientInfo, requestTimeoutMs: 60_000 });
    try {
      await client.connect(transport);
      const firstPid = transport.pid!;
      const progress = firstProgress();
      // 100 steps of 20 ms: far from done when the kill lands; the 60 s timeout never fires
      // within this test's budget, so a rejection can only come from noticing the death.
      const call = client.callTool("slow_count", { n: 100 }, { onProgress: progress.onProgress });
      await progress.started;
      process.kill(firstPid, "SIGKILL");
      await assert.rejects(call, (error: unknown) => {
        assert.ok(error instanceof LocalError, String(error));
        assert.equal(error.kind, "exited");
        return true;
      });
      const retried = await client.callTool("echo", { text: "after the crash" });
      assert.equal(text(retried), "after the crash");
      assert.equal(transport.restarts, 1);
      assert.notEqual(transport.pid, firstPid);
      assert.equal(isAlive(firstPid), false);
    } finally {
      await client.close();
    }
    assert.equal(transport.pid === undefined || !isAlive(transport.pid), true);
  });

  it("SIGSTOP of a stdio server: the timeout fires, cancellation is sent, SIGCONT resumes service", async () => {
    const stdio = new StdioClientTransport({ command: process.execPath, args: [EXAMPLE_SERVER] });
    const recording = new RecordingTransport(stdio);
    const client = new McpClient({ clientInfo });
    try {
      await client.connect(recording);
      const pid = stdio.pid!;
      process.kill(pid, "SIGSTOP");
      await assert.rejects(
        client.callTool("echo", { text: "frozen" }, { timeoutMs: 300 }),
        (error: unknown) => error instanceof LocalError && error.kind === "timeout",
      );
      const request = recording.sent.find(
        (message) => "method" in message && message.method === "tools/call",
      );
      assert.ok(request && "id" in request);
      const cancel = recording.sent.find(
        (message) => "method" in message && message.method === "notifications/cancelled",
      );
      assert.ok(cancel && "params" in cancel, "a notifications/cancelled was sent");
      assert.equal(cancel.params?.requestId, request.id);
      process.kill(pid, "SIGCONT");
      const after = await client.callTool("echo", { text: "thawed" });
      assert.equal(text(after), "thawed");
    } finally {
      await client.close();
    }
  });

  it("SIGSTOP of a stdio server, then close(): escalates to SIGKILL, nothing hangs", async () => {
    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: [EXAMPLE_SERVER],
      shutdown: { stdinCloseWaitMs: 200, sigtermWaitMs: 200 },
    });
    const client = new McpClient({ clientInfo });
    await client.connect(stdio);
    const pid = stdio.pid!;
    const progress = firstProgress();
    const pending = client.callTool(
      "slow_count",
      { n: 100 },
      { timeoutMs: 30_000, onProgress: progress.onProgress },
    );
    const outcome = pending.then(
      () => undefined,
      (error: unknown) => error,
    );
    await progress.started;
    process.kill(pid, "SIGSTOP");
    // A stopped process ignores EOF and holds SIGTERM pending; only SIGKILL ends it.
    await client.close();
    const error = await outcome;
    assert.ok(error instanceof LocalError, String(error));
    assert.equal(isAlive(pid), false);
  });

  it("HTTP server dies mid-stream: the call fails locally, a re-issue on the restarted server succeeds", async () => {
    const build = () => {
      const mcp = new McpServer({ serverInfo: { name: "restartable", version: "0" } });
      mcp.tool({ name: "echo", inputSchema: { type: "object" } }, (args) => String(args.text));
      mcp.tool({ name: "stream", inputSchema: { type: "object" } }, async (_args, context) => {
        await context.progress(1, 2);
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 30_000);
          context.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve(undefined);
          });
        });
        return "late";
      });
      return mcp;
    };
    const first = await serveHttp(build());
    const port = (first.server.address() as AddressInfo).port;
    const client = new McpClient({ clientInfo });
    let second: Awaited<ReturnType<typeof serveHttp>> | undefined;
    try {
      await client.connect(new HttpClientTransport(first.url));
      const progress = firstProgress();
      const call = client.callTool("stream", {}, { onProgress: progress.onProgress });
      await progress.started;
      // A crash, not a graceful stop: the connections drop with the stream half-sent.
      first.server.closeAllConnections();
      await assert.rejects(call, (error: unknown) => {
        // Never mistaken for an error reply from the server.
        assert.ok(!(error instanceof JsonRpcError), String(error));
        assert.ok(error instanceof LocalError, String(error));
        return true;
      });
      await first.close();
      second = await serveHttp(build(), { port });
      const reissued = await client.callTool("echo", { text: "back again" });
      assert.equal(text(reissued), "back again");
    } finally {
      await client.close();
      await first.close();
      await second?.close();
    }
  });

  it("a TCP client that vanishes mid-call without closing: the server aborts the handler and frees the connection", async () => {
    let aborted!: () => void;
    const handlerAborted = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    let started!: () => void;
    const handlerStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const mcp = new McpServer({ serverInfo: { name: "tcp", version: "0" } });
    mcp.tool({ name: "hold", inputSchema: { type: "object" } }, (_args, context) => {
      started();
      return new Promise((_resolve, reject) => {
        context.signal.addEventListener("abort", () => {
          aborted();
          reject(context.signal.reason);
        });
      });
    });
    const listener = await listenSocket("tcp://127.0.0.1:0", (transport) => {
      mcp.connect(transport);
    });
    try {
      const { port } = listener.address as { port: number };
      const socket = connect(port, "127.0.0.1");
      socket.on("error", () => {});
      const call = {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "hold", arguments: {}, _meta: MODERN_META },
      };
      socket.write(`${JSON.stringify(call)}\n`);
      await handlerStarted;
      socket.resetAndDestroy();
      await handlerAborted;
      await until(
        () => listener.connections === 0,
        () => `no connection left open (${listener.connections} are)`,
      );
    } finally {
      await listener.close();
    }
  });

  it("a stdio client that vanishes mid-call (pipes closed): the server stops its work and exits cleanly", async () => {
    const server = new RawStdioServer();
    const call = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "slow_count",
        arguments: { n: 100 },
        _meta: { ...MODERN_META, progressToken: 1 },
      },
    };
    await server.line(JSON.stringify(call));
    await server.reply((reply) => reply?.method === "notifications/progress", "the first progress");
    server.child.stdout.destroy();
    server.child.stdin.destroy();
    const status = await server.stop();
    assert.deepEqual(status, { code: 0, signal: null }, server.stderr);
  });
});
