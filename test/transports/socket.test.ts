import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { LocalError } from "../../src/jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcMessage, JsonRpcResultResponse } from "../../src/jsonrpc/types.js";
import { isRequest } from "../../src/jsonrpc/types.js";
import type { FrameError, TransportReceiver } from "../../src/protocol/transport.js";
import {
  connectSocket,
  listenSocket,
  type SocketListener,
  type SocketTarget,
} from "../../src/transports/socket/index.js";
import type { SocketTransport } from "../../src/transports/socket/socket-transport.js";
import { until } from "../helpers/poll.js";

/** Socket handles of this process, by type (TCPSocketWrap, TCPServerWrap, PipeWrap...). */
function socketHandles(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) {
    if (/TCP|Pipe|Connect/.test(type)) counts.set(type, (counts.get(type) ?? 0) + 1);
  }
  return counts;
}

function leakedSince(baseline: Map<string, number>): string[] {
  const extra: string[] = [];
  for (const [type, count] of socketHandles()) {
    if (count > (baseline.get(type) ?? 0))
      extra.push(`${type} x${count - (baseline.get(type) ?? 0)}`);
  }
  return extra;
}

let baseline = new Map<string, number>();
let tempDir = "";

before(() => {
  tempDir = mkdtempSync(join(tmpdir(), "mcpwire-socket-"));
});
after(() => rmSync(tempDir, { recursive: true, force: true }));
beforeEach(() => {
  baseline = socketHandles();
});
afterEach(async () => {
  // Every test closes what it opened; handles must really be gone, not merely unreferenced.
  await until(
    () => leakedSince(baseline).length === 0,
    () => `no socket leaks, still open: ${leakedSince(baseline).join(", ")}`,
  );
});

let socketCounter = 0;
function unixTarget(): SocketTarget {
  socketCounter += 1;
  return { kind: "unix", path: join(tempDir, `s${socketCounter}.sock`) };
}

interface EchoServer {
  listener: SocketListener;
  frameErrors: FrameError[];
  /** Every message each accepted connection received, by connection number. */
  received: JsonRpcMessage[][];
}

/** Answers each request with its params and the number of the connection it came on. */
async function echoServer(
  target: SocketTarget,
  options: Parameters<typeof listenSocket>[2] = {},
): Promise<EchoServer> {
  const server: EchoServer = { listener: undefined!, frameErrors: [], received: [] };
  server.listener = await listenSocket(
    target,
    (transport) => {
      const connection = server.received.length;
      const received: JsonRpcMessage[] = [];
      server.received.push(received);
      transport.start({
        message(message) {
          received.push(message);
          if (!isRequest(message)) return;
          const result = { connection, echo: message.params ?? {} };
          transport.send({ jsonrpc: "2.0", id: message.id, result }).catch(() => {});
        },
        frameError: (error) => server.frameErrors.push(error),
      });
    },
    options,
  );
  return server;
}

interface Client {
  transport: SocketTransport;
  received: JsonRpcMessage[];
  endedCalls: number;
  request(params?: Record<string, unknown>): Promise<JsonRpcResultResponse>;
}

/** A client that correlates replies by id; `onEnded` makes it implement ended(). */
function startClient(transport: SocketTransport, onEnded?: () => void): Client {
  const pending = new Map<JsonRpcId, (reply: JsonRpcResultResponse) => void>();
  let nextId = 1;
  const client: Client = {
    transport,
    received: [],
    endedCalls: 0,
    request(params = {}) {
      const id = nextId++;
      const reply = new Promise<JsonRpcResultResponse>((resolve) => pending.set(id, resolve));
      void transport.send({ jsonrpc: "2.0", id, method: "echo", params });
      return reply;
    },
  };
  const receiver: TransportReceiver = {
    message(message) {
      client.received.push(message);
      if ("result" in message) {
        pending.get(message.id)?.(message);
        pending.delete(message.id);
      }
    },
  };
  if (onEnded) {
    receiver.ended = () => {
      client.endedCalls += 1;
      onEnded();
    };
  }
  transport.start(receiver);
  return client;
}

for (const kind of ["tcp", "unix"] as const) {
  const target = (): SocketTarget =>
    kind === "tcp" ? { kind: "tcp", host: "127.0.0.1", port: 0 } : unixTarget();

  describe(`${kind} socket round trips`, () => {
    it("answers many concurrent requests on several connections, never crossing them", async () => {
      const server = await echoServer(target());
      if (kind === "tcp") assert.notEqual((server.listener.address as { port: number }).port, 0);
      const clients = await Promise.all(
        Array.from({ length: 4 }, async () =>
          startClient(await connectSocket(server.listener.address)),
        ),
      );
      await until(() => server.listener.connections === 4, "four connections");
      const replies = await Promise.all(
        clients.map((client, index) =>
          Promise.all(Array.from({ length: 200 }, (_, n) => client.request({ client: index, n }))),
        ),
      );
      const connectionOf = new Set<number>();
      replies.forEach((clientReplies, index) => {
        const connections = new Set(clientReplies.map((reply) => reply.result.connection));
        assert.equal(connections.size, 1, "one client, one server connection");
        connectionOf.add([...connections][0] as number);
        assert.deepEqual(
          clientReplies.map((reply) => reply.result.echo),
          Array.from({ length: 200 }, (_, n) => ({ client: index, n })),
        );
        assert.equal(clients[index]!.received.length, 200, "no reply meant for another client");
      });
      assert.equal(connectionOf.size, 4);
      for (const received of server.received) {
        const senders = new Set(
          received.map((m) => (m as unknown as { params: { client: number } }).params.client),
        );
        assert.equal(senders.size, 1, "each server connection hears only its own client");
      }
      await Promise.all(clients.map((client) => client.transport.close()));
      await until(() => server.listener.connections === 0, "server side to see the clients go");
      await server.listener.close();
    });

    it("carries a 4 MB message and multi-byte text intact", async () => {
      const server = await echoServer(target());
      const client = startClient(await connectSocket(server.listener.address));
      const big = "x".repeat(4 * 1024 * 1024);
      const bigReply = await client.request({ big });
      assert.equal((bigReply.result.echo as { big: string }).big, big);
      // Long enough that chunk boundaries fall inside multi-byte characters.
      const text = "héllo wörld, 你好世界, emoji 🎉🚀 ".repeat(20_000);
      const textReply = await client.request({ text, line: "a\nb\r\n" });
      assert.deepEqual(textReply.result.echo, { text, line: "a\nb\r\n" });
      await client.transport.close();
      await server.listener.close();
    });

    it("half-close: the server sees ended(), replies, closes; the client gets the reply first", async () => {
      let serverEnded = false;
      const listener = await listenSocket(target(), (transport) => {
        const requests: JsonRpcId[] = [];
        transport.start({
          message(message) {
            if (isRequest(message)) requests.push(message.id);
          },
          ended() {
            serverEnded = true;
            // The client has finished sending; answer what it asked, then hang up.
            void (async () => {
              for (const id of requests) {
                await transport.send({ jsonrpc: "2.0", id, result: { final: true } });
              }
              await transport.close();
            })();
          },
        });
      });
      const transport = await connectSocket(listener.address);
      const client = startClient(transport);
      const reply = client.request({});
      await transport.end();
      await assert.rejects(
        transport.send({ jsonrpc: "2.0", method: "late" }),
        (error: unknown) => error instanceof LocalError && error.kind === "closed",
      );
      const info = await transport.closed;
      assert.equal(info.error, undefined);
      assert.ok(serverEnded);
      assert.deepEqual(client.received, [{ jsonrpc: "2.0", id: 1, result: { final: true } }]);
      assert.deepEqual((await reply).result, { final: true });
      await until(() => listener.connections === 0, "server connection closed");
      await listener.close();
    });

    it("listener.close() closes open connections and stops accepting", async () => {
      const server = await echoServer(target());
      const address = server.listener.address;
      const quiet = startClient(await connectSocket(address));
      let endedSeen = 0;
      const polite = startClient(await connectSocket(address), () => {
        endedSeen += 1;
        void polite.transport.close();
      });
      await polite.request({ warm: true });
      await until(() => server.listener.connections === 2, "two connections");
      await server.listener.close();
      assert.equal(server.listener.connections, 0);
      assert.deepEqual(await quiet.transport.closed, {});
      assert.deepEqual(await polite.transport.closed, {});
      assert.equal(endedSeen, 1);
      if (address.kind === "unix")
        assert.equal(existsSync(address.path), false, "socket file removed");
      await assert.rejects(connectSocket(address), LocalError);
      await server.listener.close(); // idempotent
    });

    it("garbage lines become frame errors and the stream goes on", async () => {
      const server = await echoServer(target(), { maxMessageSize: 1000 });
      const raw = await rawConnect(server.listener.address);
      const replies: string[] = [];
      let buffered = "";
      raw.setEncoding("utf8");
      raw.on("data", (chunk: string) => {
        buffered += chunk;
        const lines = buffered.split("\n");
        buffered = lines.pop()!;
        replies.push(...lines);
      });
      raw.write('this is not json\n{"jsonrpc":"2.0","id":1,"method":"echo"}\n');
      raw.write(`[1,2]\n{"jsonrpc":"2.0","id":"a","result":{}}\n"${"y".repeat(5000)}"\n`);
      raw.write('{"jsonrpc":"2.0","id":2,"method":"echo","params":{"after":"garbage"}}\n');
      await until(() => replies.length === 2, "two replies");
      assert.deepEqual(
        server.frameErrors.map((error) => error.kind),
        ["invalid", "invalid", "oversized"],
      );
      assert.deepEqual(JSON.parse(replies[1]!), {
        jsonrpc: "2.0",
        id: 2,
        result: { connection: 0, echo: { after: "garbage" } },
      });
      assert.equal(server.received[0]!.length, 3, "two requests and one response arrived");
      raw.end();
      await until(() => server.listener.connections === 0, "EOF to close the server side");
      raw.destroy();
      await server.listener.close();
    });

    it("closes connections beyond maxConnections at once", async () => {
      const server = await echoServer(target(), { maxConnections: 1 });
      assert.equal(server.listener.maxConnections, 1);
      const first = startClient(await connectSocket(server.listener.address));
      await first.request({});
      const second = startClient(await connectSocket(server.listener.address));
      await second.transport.closed;
      assert.equal(server.listener.connections, 1);
      assert.equal((await first.request({ still: "works" })).result.connection, 0);
      await first.transport.close();
      await server.listener.close();
    });

    it("rejects sends after close with a LocalError", async () => {
      const server = await echoServer(target());
      const transport = await connectSocket(server.listener.address);
      startClient(transport);
      await transport.close();
      await assert.rejects(
        transport.send({ jsonrpc: "2.0", method: "x" }),
        (error: unknown) => error instanceof LocalError && error.kind === "closed",
      );
      await server.listener.close();
    });

    it("a peer still sending when we close reads our last message and ends cleanly", async () => {
      // Without lingering, the reset from closing on unread input makes the peer's next write
      // fail before it reads "bye": it would see an EPIPE and never the message.
      const listener = await listenSocket(target(), (transport) => {
        let count = 0;
        transport.start({
          message() {
            count += 1;
            if (count !== 50) return;
            void transport.send({ jsonrpc: "2.0", method: "bye" });
            void transport.close();
          },
        });
      });
      const transport = await connectSocket(listener.address);
      const client = startClient(transport);
      let stopped = false;
      void transport.closed.then(() => {
        stopped = true;
      });
      const padding = "p".repeat(2000);
      for (let n = 0; !stopped; n += 1) {
        await transport
          .send({ jsonrpc: "2.0", method: "spam", params: { n, padding } })
          .catch(() => {});
        if (n % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      assert.deepEqual(await transport.closed, {}, "an orderly end, no reset");
      assert.deepEqual(client.received, [{ jsonrpc: "2.0", method: "bye" }]);
      await listener.close();
    });
  });
}

function rawConnect(target: SocketTarget): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket =
      target.kind === "tcp" ? connect(target.port, target.host) : connect({ path: target.path });
    socket.once("connect", () => resolve(socket));
    socket.once("error", reject);
  });
}

function isLocalError(kind: string, message?: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof LocalError, `expected a LocalError, got ${error}`);
    assert.equal(error.kind, kind);
    if (message) assert.match(error.message, message);
    return true;
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server: Server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs `code` in a child Node process and resolves with the first line it prints. */
async function spawnNode(code: string): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`child exited early with ${code}`)));
    child.stdout!.setEncoding("utf8");
    child.stdout!.once("data", (chunk: string) => resolve(chunk.trim()));
  });
  return { child, line };
}

async function kill(child: ChildProcess): Promise<void> {
  child.stdout?.destroy();
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

describe("connecting", () => {
  it("fails fast with a LocalError when nothing listens", async () => {
    const port = await freePort();
    await assert.rejects(
      connectSocket({ kind: "tcp", host: "127.0.0.1", port }),
      isLocalError("transport", /ECONNREFUSED/),
    );
    await assert.rejects(
      connectSocket(`unix:${join(tempDir, "nobody-here.sock")}`),
      isLocalError("transport", /ENOENT/),
    );
    await assert.rejects(connectSocket("tcp://127.0.0.1:0"), /port 0/);
    await assert.rejects(connectSocket("ftp://x"), /unsupported socket address/);
  });

  it("gives up after timeoutMs or on abort when the peer never accepts", async () => {
    // A listener whose event loop is blocked never accepts: once its backlog (1, so two queued
    // connections on Linux) is full, further handshakes hang, which is what a dead host looks like.
    const { child, line } = await spawnNode(`
      const server = require("node:net").createServer();
      server.listen({ host: "127.0.0.1", port: 0, backlog: 1 }, () => {
        process.stdout.write(server.address().port + "\\n");
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);
      });`);
    const target: SocketTarget = { kind: "tcp", host: "127.0.0.1", port: Number(line) };
    const fillers: SocketTransport[] = [];
    try {
      let timedOut: unknown;
      for (let attempt = 0; attempt < 20 && !timedOut; attempt += 1) {
        try {
          fillers.push(await connectSocket(target, { timeoutMs: 300 }));
        } catch (error) {
          timedOut = error;
        }
      }
      assert.ok(timedOut, "a connection attempt finally hangs");
      isLocalError("timeout", /timed out after 300 ms/)(timedOut);

      const controller = new AbortController();
      const aborted = connectSocket(target, { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await assert.rejects(aborted, isLocalError("aborted"));
      await assert.rejects(
        connectSocket(target, { signal: AbortSignal.timeout(50) }),
        isLocalError("timeout"),
      );
      await assert.rejects(
        connectSocket(target, { signal: AbortSignal.abort() }),
        isLocalError("aborted"),
      );
    } finally {
      await Promise.all(fillers.map((transport) => transport.close()));
      await kill(child);
    }
  });
});

describe("peers that leave before start()", () => {
  // Only TCP has resets; a Unix peer going away before start() is an ordinary end of stream.
  it("survives a connection reset before start(), and closes it on start", async () => {
    const accepted: SocketTransport[] = [];
    const listener = await listenSocket("tcp://127.0.0.1:0", (transport) =>
      accepted.push(transport),
    );
    const raw = await rawConnect(listener.address);
    await until(() => accepted.length === 1, "the connection to be accepted");
    raw.resetAndDestroy();
    await until(() => listener.connections === 0, "the server side to see the reset");
    const closedCalls: unknown[] = [];
    accepted[0]!.start({
      message: () => assert.fail("no message"),
      closed: (info) => closedCalls.push(info),
    });
    await accepted[0]!.closed;
    assert.equal(closedCalls.length, 1);
    await listener.close();
  });

  it("a Unix peer that left before start() is seen as an end of stream on start", async () => {
    const accepted: SocketTransport[] = [];
    const listener = await listenSocket(unixTarget(), (transport) => accepted.push(transport));
    const raw = await rawConnect(listener.address);
    await new Promise<void>((resolve) =>
      raw.end('{"jsonrpc":"2.0","method":"last words"}\n', resolve),
    );
    raw.destroy();
    await until(() => accepted.length === 1, "the connection to be accepted");
    const received: JsonRpcMessage[] = [];
    accepted[0]!.start({ message: (message) => received.push(message) });
    assert.deepEqual(await accepted[0]!.closed, {});
    assert.deepEqual(received, [{ jsonrpc: "2.0", method: "last words" }]);
    await listener.close();
  });
});

describe("listener errors", () => {
  it("a throwing onConnection closes that connection, reports, and the listener goes on", async () => {
    const reported: Error[] = [];
    let accepted = 0;
    const listener = await listenSocket(
      "tcp://127.0.0.1:0",
      (transport) => {
        accepted += 1;
        if (accepted === 1) throw new Error("handler bug");
        transport.start({
          message(message) {
            if (isRequest(message))
              void transport.send({ jsonrpc: "2.0", id: message.id, result: {} });
          },
        });
      },
      { onError: (error) => reported.push(error) },
    );
    const doomed = startClient(await connectSocket(listener.address));
    assert.deepEqual(await doomed.transport.closed, {});
    assert.deepEqual(
      reported.map((error) => error.message),
      ["handler bug"],
    );
    const fine = startClient(await connectSocket(listener.address));
    assert.deepEqual((await fine.request({})).result, {});
    await fine.transport.close();
    await listener.close();
  });
});

describe("unix socket files", () => {
  it("replaces a stale socket file left by a crashed process", async () => {
    const { path } = unixTarget() as { path: string };
    const { child } = await spawnNode(`
      require("node:net").createServer().listen(${JSON.stringify(path)}, () => process.stdout.write("up\\n"));`);
    await kill(child); // SIGKILL: no chance to remove its socket file
    assert.ok(existsSync(path), "the crashed server left its socket file");
    const server = await echoServer({ kind: "unix", path });
    const client = startClient(await connectSocket(server.listener.address));
    assert.equal((await client.request({ n: 1 })).result.connection, 0);
    await client.transport.close();
    await server.listener.close();
    assert.equal(existsSync(path), false);
  });

  it("never steals the address of a live listener", async () => {
    const server = await echoServer(unixTarget());
    await assert.rejects(
      listenSocket(server.listener.address, () => assert.fail("must not accept")),
      isLocalError("transport", /another process is listening/),
    );
    const client = startClient(await connectSocket(server.listener.address));
    // Connection 0 was the second listener's probe, which found this one alive.
    const reply = await client.request({ still: "here" });
    assert.deepEqual(reply.result, { connection: 1, echo: { still: "here" } });
    await client.transport.close();
    await server.listener.close();
  });

  it("does not delete a regular file in the way", async () => {
    const { path } = unixTarget() as { path: string };
    writeFileSync(path, "precious");
    await assert.rejects(
      listenSocket({ kind: "unix", path }, () => {}),
      isLocalError("transport", /not a socket/),
    );
    assert.ok(existsSync(path));
  });

  it("fails clearly when a TCP port is taken", async () => {
    const server = await echoServer({ kind: "tcp", host: "127.0.0.1", port: 0 });
    await assert.rejects(
      listenSocket(server.listener.address, () => {}),
      isLocalError("transport", /address already in use/),
    );
    await server.listener.close();
  });
});
