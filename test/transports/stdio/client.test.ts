import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { LocalError } from "../../../src/jsonrpc/errors.js";
import {
  ServerExitedError,
  type StdioClientOptions,
  StdioClientTransport,
} from "../../../src/transports/stdio/client.js";
import { until } from "../../helpers/poll.js";
import { isAlive, RpcPeer, runProgram } from "../../helpers/stdio-rpc.js";

const fixture = (name: string): string =>
  fileURLToPath(new URL(`../../fixtures/${name}.js`, import.meta.url));

const open: StdioClientTransport[] = [];

/** Kills a process a failed assertion may have left behind; a no-op when it is gone. */
function reap(pid: number): void {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone, as it should be.
  }
}

/** A client for the echo fixture; every one is closed after the suite, whatever happens. */
function echoServer(
  args: string[] = [],
  options: Partial<StdioClientOptions> = {},
): { transport: StdioClientTransport; peer: RpcPeer } {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [fixture("child-echo"), ...args],
    ...options,
  });
  open.push(transport);
  return { transport, peer: new RpcPeer(transport) };
}

after(async () => {
  await Promise.all(open.map((transport) => transport.close()));
});

describe("StdioClientTransport", { timeout: 60_000 }, () => {
  it("round-trips many requests and a 4 MB message", async () => {
    const { transport, peer } = echoServer();
    const replies = await Promise.all(
      Array.from({ length: 300 }, (_, i) => peer.request("echo", { i })),
    );
    replies.forEach((reply, i) => {
      assert.deepEqual(reply.params, { i });
      assert.equal(reply.pid, transport.pid);
    });
    const big = "é".repeat(2 * 1024 * 1024); // 4 MiB of UTF-8
    const reply = await peer.request("echo", { big });
    assert.equal((reply.params as { big: string }).big, big);
    await transport.close();
    assert.deepEqual(peer.closedInfo, {});
  });

  it("closes by ending stdin when the server exits on EOF, without signals", async () => {
    const { transport, peer } = echoServer([], { shutdown: { stdinCloseWaitMs: 15_000 } });
    await peer.request("echo");
    await Promise.all([transport.close(), transport.close()]);
    assert.deepEqual(await transport.exited, { code: 0, signal: null });
    assert.deepEqual(await transport.closed, {});
    await transport.close(); // idempotent after the fact too
    await assert.rejects(
      transport.send({ jsonrpc: "2.0", method: "notifications/x" }),
      (error: unknown) => error instanceof LocalError && error.kind === "closed",
    );
  });

  it("SIGKILLs a server that ignores both EOF and SIGTERM", async () => {
    const { transport, peer } = echoServer(["--linger", "--ignore-sigterm"], {
      shutdown: { stdinCloseWaitMs: 200, sigtermWaitMs: 200 },
    });
    await peer.request("echo"); // its SIGTERM handler is installed by now
    const pid = transport.pid!;
    await transport.close();
    assert.deepEqual(await transport.exited, { code: null, signal: "SIGKILL" });
    assert.equal(isAlive(pid), false);
  });

  it("takes a lingering server's grandchild down with it (SIGTERM to the group)", async () => {
    const { transport, peer } = echoServer(["--linger"], {
      shutdown: { stdinCloseWaitMs: 200, sigtermWaitMs: 5000 },
    });
    const { pid } = (await peer.request("grandchild")) as { pid: number };
    try {
      assert.equal(isAlive(pid), true);
      await transport.close();
      assert.deepEqual(await transport.exited, { code: null, signal: "SIGTERM" });
      await until(() => !isAlive(pid), `grandchild ${pid} to exit`, 5000);
    } finally {
      reap(pid);
    }
  });

  it("ends a grandchild left behind by a server that exited on EOF", async () => {
    const { transport, peer } = echoServer([], { shutdown: { sigtermWaitMs: 5000 } });
    const { pid } = (await peer.request("grandchild")) as { pid: number };
    try {
      await transport.close();
      assert.deepEqual(await transport.exited, { code: 0, signal: null });
      await until(() => !isAlive(pid), `grandchild ${pid} to exit`, 5000);
    } finally {
      reap(pid);
    }
  });

  it("fails everything in flight when the server crashes, naming the code and stderr", async () => {
    const { transport, peer } = echoServer();
    await peer.request("echo");
    const held = peer.request("hold");
    const crashed = peer.request("crash", { stderr: "fatal: the widget broke\n", code: 3 });
    const isExitError = (error: unknown): boolean =>
      error instanceof ServerExitedError &&
      error.kind === "exited" &&
      error.code === 3 &&
      /code 3/.test(error.message) &&
      error.message.includes("fatal: the widget broke");
    await assert.rejects(held, isExitError);
    await assert.rejects(crashed, isExitError);
    const info = await transport.closed;
    assert.ok(info.error instanceof LocalError && isExitError(info.error));
    assert.match(transport.stderrTail(), /fatal: the widget broke/);
    await assert.rejects(peer.request("echo"), isExitError);
    await transport.close();
  });

  it("drains a chatty stderr and keeps only a bounded tail", async () => {
    let forwarded = 0;
    const { transport, peer } = echoServer([], {
      stderrTailBytes: 1000,
      onStderr: (text) => {
        forwarded += text.length;
      },
    });
    const bytes = 20 * 1024 * 1024;
    assert.deepEqual(await peer.request("flood", { bytes }), { flooded: bytes });
    // stderr is a separate pipe: its last bytes may still be in flight when the reply arrives.
    const total = bytes + "END-OF-FLOOD\n".length;
    await until(() => forwarded === total, `${total} bytes of stderr (have ${forwarded})`);
    const tail = transport.stderrTail();
    assert.ok(tail.length <= 1000, `tail of ${tail.length} characters`);
    assert.ok(tail.endsWith("END-OF-FLOOD\n"));
    await transport.close();
  });

  it("with stderr ignored, a chatty server still answers and no tail is kept", async () => {
    const { transport, peer } = echoServer([], { stderr: "ignore" });
    const bytes = 2 * 1024 * 1024;
    assert.deepEqual(await peer.request("flood", { bytes }), { flooded: bytes });
    assert.equal(transport.stderrTail(), "");
    await transport.close();
  });

  it("passes a safe environment plus additions, everything only with inheritEnv", async () => {
    process.env.MCPWIRE_TEST_PARENT_SECRET = "do-not-leak";
    try {
      const plain = echoServer([], { env: { MCPWIRE_ADDED: "yes" } });
      const { env } = (await plain.peer.request("env")) as { env: Record<string, string> };
      assert.equal(env.PATH, process.env.PATH);
      assert.equal(env.MCPWIRE_ADDED, "yes");
      assert.equal(env.MCPWIRE_TEST_PARENT_SECRET, undefined);
      await plain.transport.close();

      const inheriting = echoServer([], { inheritEnv: true, env: { MCPWIRE_ADDED: "yes" } });
      const all = (await inheriting.peer.request("env")) as { env: Record<string, string> };
      assert.equal(all.env.MCPWIRE_TEST_PARENT_SECRET, "do-not-leak");
      assert.equal(all.env.MCPWIRE_ADDED, "yes");
      await inheriting.transport.close();
    } finally {
      delete process.env.MCPWIRE_TEST_PARENT_SECRET;
    }
  });

  it("reports a command that does not exist as a LocalError, without throwing or hanging", async () => {
    const transport = new StdioClientTransport({ command: "mcpwire-no-such-command-4f2a9c" });
    open.push(transport);
    const peer = new RpcPeer(transport);
    await assert.rejects(peer.request("echo"), LocalError);
    const info = await transport.closed;
    assert.ok(info.error instanceof LocalError);
    assert.match(info.error.message, /ENOENT/);
    assert.equal(await transport.spawned, false);
    assert.deepEqual(await transport.exited, { code: null, signal: null });
    await transport.close();
  });

  it("names a working directory that does not exist as such, not the command", async () => {
    const cwd = "/nonexistent-mcpwire-dir-7c1e/work";
    const transport = new StdioClientTransport({ command: process.execPath, cwd });
    open.push(transport);
    const peer = new RpcPeer(transport);
    await assert.rejects(peer.request("echo"), LocalError);
    const info = await transport.closed;
    assert.equal(
      info.error?.message,
      `could not start MCP server "${process.execPath}": its working directory ${cwd} does not exist`,
    );
    await transport.close();
  });

  it("close() before start() resolves, and start() twice throws", async () => {
    const unused = new StdioClientTransport({ command: process.execPath });
    await unused.close();
    assert.deepEqual(await unused.closed, {});
    const { transport } = echoServer();
    assert.throws(() => transport.start({ message() {} }), /already started/);
    await transport.close();
  });

  it("kills live servers when the program that started them exits", async () => {
    const { pid } = (await runProgram("exit")) as { pid: number };
    assert.ok(pid > 0);
    try {
      await until(() => !isAlive(pid), `orphaned server ${pid} to exit`, 5000);
    } finally {
      reap(pid);
    }
  });

  it("leaves nothing behind after close(): the program exits by itself", async () => {
    const { pid, exit } = (await runProgram("close")) as { pid: number; exit: unknown };
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.equal(isAlive(pid), false);
  });
});
