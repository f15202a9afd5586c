import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { PassThrough, Writable } from "node:stream";
import { afterEach, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { JsonRpcMessage } from "../../../src/jsonrpc/types.js";
import type { CloseInfo, TransportReceiver } from "../../../src/protocol/transport.js";
import { StdioServerTransport } from "../../../src/transports/stdio/server.js";
import { until } from "../../helpers/poll.js";

const FIXTURE = fileURLToPath(new URL("../../fixtures/server-echo.js", import.meta.url));
const EIGHT_MB = 8 * 1024 * 1024;

// biome-ignore lint/suspicious/noExplicitAny: parsed wire lines are inspected loosely
type Parsed = any;

interface ServerProcess {
  child: ChildProcessWithoutNullStreams;
  /** Every complete stdout line that parsed as JSON-RPC. */
  messages: Parsed[];
  /** Stdout lines that were not JSON-RPC, and an unterminated last line (checked at exit). */
  invalidLines: string[];
  partialLine(): string;
  stderr(): string;
  write(message: unknown): void;
  response(id: number | string | null): Parsed | undefined;
  /** Resolves once the process has exited and its stdio is closed. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<ChildProcessWithoutNullStreams>();

afterEach(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once("close", resolve));
      child.kill("SIGKILL");
      await gone;
    }
  }
  children.clear();
});

function startServer(args: string[] = []): ServerProcess {
  const child = spawn(process.execPath, [FIXTURE, ...args], { stdio: "pipe" });
  children.add(child);
  const messages: Parsed[] = [];
  const invalidLines: string[] = [];
  // Pieces of the line still open: joined only once its newline arrives, so an 8 MB line costs
  // one copy rather than one per chunk (a quadratic reader was slow enough under load to outlast
  // the server's 5 s flush timeout).
  let pending: string[] = [];
  let stderr = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text: string) => {
    if (!text.includes("\n")) {
      pending.push(text);
      return;
    }
    const lines = text.split("\n");
    lines[0] = pending.join("") + lines[0];
    pending = [lines.pop()!];
    for (const line of lines) {
      try {
        const message = JSON.parse(line);
        if (message?.jsonrpc === "2.0") messages.push(message);
        else invalidLines.push(line);
      } catch {
        invalidLines.push(line);
      }
    }
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => {
    stderr += text;
  });
  // The server may be gone before we stop writing; that is its business, not a test failure.
  child.stdin.on("error", () => {});
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    messages,
    invalidLines,
    partialLine: () => pending.join(""),
    stderr: () => stderr,
    write: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
    response: (id) => messages.find((message) => message.id === id),
    exited,
  };
}

function request(id: number, method: string, params?: Record<string, unknown>) {
  return { jsonrpc: "2.0", id, method, ...(params ? { params } : {}) };
}

/** Waits for exit code 0; unless stdout was cut on purpose, it must hold only JSON-RPC lines. */
async function exitsCleanly(server: ServerProcess, options: { stdoutCut?: boolean } = {}) {
  const timeoutMs = 10_000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no exit; stderr:\n${server.stderr()}`)), timeoutMs);
  });
  const result = await Promise.race([server.exited, timeout]).finally(() => clearTimeout(timer));
  assert.deepEqual(result, { code: 0, signal: null }, `stderr:\n${server.stderr()}`);
  if (options.stdoutCut) return;
  assert.deepEqual(
    server.invalidLines.map((line) => line.slice(0, 200)),
    [],
    "stdout lines that are not JSON-RPC",
  );
  assert.equal(server.partialLine().length, 0, "stdout ended in the middle of a line");
}

describe("StdioServerTransport in a real process", () => {
  it("answers many requests in order, then exits on EOF", async () => {
    const server = startServer();
    const count = 500;
    let batch = "";
    for (let id = 1; id <= count; id++) batch += `${JSON.stringify(request(id, "echo", { id }))}\n`;
    server.child.stdin.write(batch);
    await until(() => server.messages.length === count, "all replies");
    assert.deepEqual(
      server.messages.map((message) => message.result.echo.id),
      Array.from({ length: count }, (_, index) => index + 1),
    );
    server.child.stdin.end();
    await exitsCleanly(server);
  });

  it("flushes an 8 MB reply sent right before EOF-driven close, even with process.exit", async () => {
    const server = startServer(["--exit-after-close"]);
    server.write(request(1, "big", { bytes: EIGHT_MB }));
    server.child.stdin.end();
    await exitsCleanly(server);
    assert.equal(server.response(1)?.result.data.length, EIGHT_MB);
  });

  it("flushes an 8 MB reply when the server closes on its own while stdin stays open", async () => {
    const server = startServer(["--exit-after-close"]);
    server.write(request(1, "close", { bytes: EIGHT_MB }));
    await exitsCleanly(server);
    assert.equal(server.response(1)?.result.data.length, EIGHT_MB);
    assert.match(server.stderr(), /closed by request/);
  });

  it("leaves nothing keeping the process alive after close (no process.exit)", async () => {
    const server = startServer();
    server.write(request(1, "close"));
    // stdin is still open on our side: only close() releasing it lets the process end.
    await exitsCleanly(server);
    assert.ok(server.response(1));
    assert.equal(server.child.stdin.writableEnded, false);
  });

  it("on EOF still delivers a pending slow reply before exiting", async () => {
    const server = startServer();
    server.write(request(1, "slow", { ms: 300 }));
    server.child.stdin.end();
    await exitsCleanly(server);
    assert.deepEqual(server.response(1)?.result, { echo: { ms: 300 } });
    assert.match(server.stderr(), /input ended/);
  });

  it("sends console output from handlers to stderr; stdout holds only JSON-RPC", async () => {
    const server = startServer();
    server.write(request(1, "log"));
    server.write(request(2, "echo"));
    server.child.stdin.end();
    await exitsCleanly(server);
    assert.equal(server.messages.length, 2); // and exitsCleanly found no other stdout line
    assert.deepEqual(server.response(1)?.result, { logged: true });
    for (const text of ["hello from handler", "info from handler", "debug from handler"]) {
      assert.ok(server.stderr().includes(text), `stderr lacks ${text}`);
    }
    assert.match(server.stderr(), /dirFromHandler/);
    assert.match(server.stderr(), /tableFromHandler/);
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`on ${signal} flushes a pending reply and exits with code 0`, async () => {
      const server = startServer();
      server.write(request(1, "slow", { ms: 300 }));
      server.write(request(2, "echo"));
      // The echo reply proves the slow request was read and the signal handlers are installed.
      await until(() => server.response(2) !== undefined, "echo reply");
      server.child.kill(signal);
      await exitsCleanly(server);
      assert.deepEqual(server.response(1)?.result, { echo: { ms: 300 } });
      assert.match(server.stderr(), /input ended/);
    });
  }

  it("a second signal while winding down forces close without waiting for work", async () => {
    // The fixture would wait a minute for the slow reply: only the forced close lets it exit.
    const server = startServer(["--wait-ms", "60000"]);
    server.write(request(1, "slow", { ms: 60_000 }));
    server.write(request(2, "echo"));
    await until(() => server.response(2) !== undefined, "echo reply");
    server.child.kill("SIGTERM");
    await until(() => server.stderr().includes("input ended"), "first signal handled");
    server.child.kill("SIGTERM");
    await exitsCleanly(server);
    assert.equal(server.response(1), undefined);
    assert.match(server.stderr(), /transport closed\n/);
  });

  it("exits by itself after the idle timeout with no input", async () => {
    const server = startServer(["--idle", "200"]);
    await exitsCleanly(server);
    assert.match(server.stderr(), /input ended/);
    assert.equal(server.child.stdin.writableEnded, false);
  });

  it("resets the idle timer on every message", async () => {
    const server = startServer(["--idle", "300"]);
    // Eight pings 50 ms apart span well over 300 ms; each must still be answered.
    for (let id = 1; id <= 8; id++) {
      server.write(request(id, "echo"));
      await until(() => server.response(id) !== undefined, `reply ${id}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await exitsCleanly(server);
    assert.equal(server.messages.length, 8);
  });

  it("reports a garbage line as a frame error (-32700, id null) and keeps going", async () => {
    const server = startServer();
    server.child.stdin.write("this is not json\n");
    server.write(request(7, "echo", { after: "garbage" }));
    await until(() => server.messages.length === 2, "two replies");
    assert.equal(server.response(null)?.error.code, -32700);
    assert.deepEqual(server.response(7)?.result, { echo: { after: "garbage" } });
    server.child.stdin.end();
    await exitsCleanly(server);
  });

  it("survives the client closing stdout while replies are being written (EPIPE)", async () => {
    const server = startServer();
    for (let id = 1; id <= 4; id++) server.write(request(id, "big", { bytes: 4 * 1024 * 1024 }));
    await new Promise((resolve) => server.child.stdout.once("data", resolve));
    server.child.stdout.destroy();
    await until(() => /transport closed with error/.test(server.stderr()), "error close");
    // The broken transport released stdin, so the process ends without anything from us.
    await exitsCleanly(server, { stdoutCut: true });
    assert.doesNotMatch(server.stderr(), /Unhandled|Uncaught|node:internal/);
  });
});

/** A receiver that records what it was told. */
function recorder(options: { ended?: boolean } = {}) {
  const seen = { messages: [] as JsonRpcMessage[], ended: 0, closed: [] as CloseInfo[] };
  const receiver: TransportReceiver = {
    message: (message) => seen.messages.push(message),
    closed: (info) => seen.closed.push(info),
  };
  if (options.ended !== false) receiver.ended = () => seen.ended++;
  return { seen, receiver };
}

function memoryTransport(options: ConstructorParameters<typeof StdioServerTransport>[0] = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  return { input, output, transport: new StdioServerTransport({ input, output, ...options }) };
}

describe("StdioServerTransport over in-memory streams", () => {
  it("redirects console output to console.error while started and restores it on close", async () => {
    const original = { log: console.log, info: console.info, debug: console.debug };
    const { transport } = memoryTransport();
    transport.start(recorder().receiver);
    assert.notEqual(console.log, original.log);
    const printed: unknown[][] = [];
    const realError = console.error;
    console.error = (...args: unknown[]) => printed.push(args);
    try {
      console.log("a %s", "b");
      console.info("c");
      console.debug("d");
    } finally {
      console.error = realError;
    }
    assert.deepEqual(printed, [["a %s", "b"], ["c"], ["d"]]);
    await transport.close();
    assert.deepEqual({ log: console.log, info: console.info, debug: console.debug }, original);
  });

  it("leaves the console alone with redirectConsole: false", async () => {
    const original = console.log;
    const { transport } = memoryTransport({ redirectConsole: false });
    transport.start(recorder().receiver);
    assert.equal(console.log, original);
    await transport.close();
  });

  it("installs signal handlers only while started", async () => {
    const before = process.listenerCount("SIGTERM");
    const beforeInt = process.listenerCount("SIGINT");
    const { transport } = memoryTransport();
    const { seen, receiver } = recorder();
    transport.start(receiver);
    assert.equal(process.listenerCount("SIGTERM"), before + 1);
    process.emit("SIGTERM");
    assert.equal(seen.ended, 1);
    process.emit("SIGINT"); // already winding down: forces close
    await transport.closed;
    assert.equal(process.listenerCount("SIGTERM"), before);
    assert.equal(process.listenerCount("SIGINT"), beforeInt);
    const quiet = memoryTransport({ handleSignals: false });
    quiet.transport.start(recorder().receiver);
    assert.equal(process.listenerCount("SIGTERM"), before);
    await quiet.transport.close();
  });

  it("on EOF notifies ended(), still sends, and releases the input on close", async () => {
    const { input, output, transport } = memoryTransport();
    const { seen, receiver } = recorder();
    transport.start(receiver);
    input.end('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await until(() => seen.ended === 1, "ended()");
    assert.equal(seen.messages.length, 1);
    await transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    await transport.close();
    assert.equal(output.read().toString(), '{"jsonrpc":"2.0","id":1,"result":{}}\n');
    assert.equal(output.writableEnded, false, "stdout is flushed, never ended");
    assert.equal(input.destroyed, true);
    assert.deepEqual(seen.closed, [{}]);
  });

  it("close() waits until the output has accepted every queued byte", async () => {
    // A slow sink with a large buffer: write() returns true at once, the bytes land later. This
    // is process.stdout on a full pipe, where process.exit right after close() would lose them.
    const accepted: string[] = [];
    const output = new Writable({
      highWaterMark: 1024 * 1024,
      write: (chunk: Buffer, _encoding, callback) => {
        setTimeout(() => {
          if (chunk.length > 0) accepted.push(chunk.toString());
          callback();
        }, 20);
      },
    });
    const transport = new StdioServerTransport({ input: new PassThrough(), output });
    transport.start(recorder().receiver);
    await transport.send({ jsonrpc: "2.0", method: "a" });
    await transport.send({ jsonrpc: "2.0", method: "b" });
    await transport.close();
    // One write or two: the lines of a turn are gathered into one.
    assert.equal(
      accepted.join(""),
      '{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc":"2.0","method":"b"}\n',
    );
  });

  it("closes at once on EOF for a receiver without ended()", async () => {
    const { input, transport } = memoryTransport();
    const { seen, receiver } = recorder({ ended: false });
    transport.start(receiver);
    input.end();
    assert.deepEqual(await transport.closed, {});
    assert.deepEqual(seen.closed, [{}]);
  });

  it("ends input after the idle timeout and ignores input after that", async () => {
    const { input, transport } = memoryTransport({ idleTimeoutMs: 30 });
    const { seen, receiver } = recorder();
    transport.start(receiver);
    await until(() => seen.ended === 1, "idle ended()");
    input.write('{"jsonrpc":"2.0","method":"late"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(seen.messages.length, 0);
    await transport.close();
  });

  it("closes with the error when the output fails, and survives later output errors", async () => {
    const input = new PassThrough();
    const output = new Writable({
      write: (_chunk, _encoding, callback) => callback(new Error("write EPIPE")),
    });
    const transport = new StdioServerTransport({ input, output });
    const { seen, receiver } = recorder();
    transport.start(receiver);
    // Whether this send resolves (handed on) or rejects depends on timing; closing must follow.
    await transport.send({ jsonrpc: "2.0", method: "x" }).catch(() => {});
    const info = await transport.closed;
    assert.match(info.error?.message ?? "", /EPIPE/);
    assert.equal(seen.closed.length, 1);
    output.emit("error", new Error("EPIPE again")); // would throw without a listener
    assert.equal(input.destroyed, true);
  });
});
