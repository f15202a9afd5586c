/**
 * A stdio server never outlives the CLI that started it, even one that ignores EOF and SIGTERM:
 * killed outright (SIGKILL, no exit hook runs) the orphan watchdog takes the server along
 * (src/transports/stdio/orphan-watchdog.ts); stopped with SIGTERM or SIGHUP the CLI cancels the call on the wire,
 * ends the server's tree and exits with 128 + the signal.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { killLeftovers, processGoneWithin } from "../helpers/process-alive.js";
import { startGateway } from "./gateway-run.js";
import { CLI, type Running, startCli, waitFor } from "./run-cli.js";

const STUBBORN = new URL("../fixtures/stubborn-server.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "mcpwire-lifetime-"));
/** Every process these tests start, killed at the end whatever happened. */
const started = new Set<number>();
after(() => {
  killLeftovers(started);
  rmSync(dir, { recursive: true, force: true });
});

let runs = 0;

/**
 * Starts the CLI with `verb…` in front of the stubborn server (polite: one that goes on EOF and
 * SIGTERM, so the stop does not wait out the escalation); resolves once `sleep` runs.
 */
async function startWithSleepingServer(
  verb: string[],
  polite = false,
): Promise<{ cli: Running; serverPid: number; pidFile: string }> {
  const pidFile = join(dir, `server-${++runs}.pid`);
  const server = [process.execPath, STUBBORN, pidFile, ...(polite ? ["--polite"] : [])];
  const cli = startCli([...verb, "--", ...server]);
  if (cli.child.pid !== undefined) started.add(cli.child.pid);
  const serverPid = await waitFor("the server's sleep call", () => {
    if (cli.child.exitCode !== null) throw new Error(`the CLI exited: ${cli.stderr()}`);
    return existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : undefined;
  });
  started.add(serverPid);
  return { cli, serverPid, pidFile };
}

describe("a stdio server's life is tied to the CLI's", () => {
  it("is killed with the CLI when the CLI is killed outright (SIGKILL)", async () => {
    const { cli, serverPid } = await startWithSleepingServer(["call", "sleep"]);
    cli.child.kill("SIGKILL");
    await cli.done;
    assert.ok(await processGoneWithin(serverPid, 10_000), "the server outlived a SIGKILLed CLI");
  });

  it("is killed with tap when tap is killed outright (SIGKILL)", async () => {
    const pidFile = join(dir, "tap-server.pid");
    const tap = spawn(
      process.execPath,
      [
        CLI,
        "tap",
        "--quiet",
        "--out",
        join(dir, "tap.ndjson"),
        "--",
        process.execPath,
        STUBBORN,
        pidFile,
      ],
      { stdio: ["pipe", "ignore", "ignore"] },
    );
    if (tap.pid !== undefined) started.add(tap.pid);
    const exited = new Promise((resolve) => tap.once("close", resolve));
    // A modern request carries its own _meta: no handshake needed.
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    tap.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "sleep", arguments: {}, _meta: meta } })}\n`,
    );
    const serverPid = await waitFor("the server's sleep call", () =>
      existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : undefined,
    );
    started.add(serverPid);
    tap.kill("SIGKILL");
    await exited;
    assert.ok(await processGoneWithin(serverPid, 10_000), "the server outlived a SIGKILLed tap");
  });

  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    // SIGTERM meets a server that ignores EOF and SIGTERM: the real 2 s + 2 s escalation to
    // SIGKILL. The other stops meet a polite server, the escalation being tested once.
    it(`${signal}: cancels the call, ends the server, exits ${code}`, async () => {
      const { cli, serverPid, pidFile } = await startWithSleepingServer(
        ["call", "sleep", "--verbose"],
        signal === "SIGHUP",
      );
      cli.child.kill(signal);
      const run = await cli.done;
      assert.equal(run.signal, null, `the CLI died of ${run.signal}: ${run.stderr}`);
      assert.equal(run.code, code, run.stderr);
      assert.match(run.stderr, /-> .*"method":"notifications\/cancelled"/);
      assert.ok(existsSync(`${pidFile}.cancelled`), "the server never saw the cancellation");
      // The CLI waits for its server to exit before it exits: nothing may be left by now.
      assert.ok(await processGoneWithin(serverPid, 2_000), `${signal} left the server running`);
    });
  }
});

/** A modern tools/call of the stubborn server's `sleep`, as a client would send it. */
const SLEEP_CALL = {
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: {
    name: "sleep",
    arguments: {},
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
};

describe("the other verbs stop their server on SIGTERM and SIGHUP too", () => {
  it("replay: SIGTERM cancels the waiting request, ends the server, exits 143", async () => {
    const recording = join(dir, "sleep.ndjson");
    const lines = [
      { t: 1, dir: "c2s", msg: SLEEP_CALL },
      { t: 2, dir: "s2c", msg: { jsonrpc: "2.0", id: 1, result: { content: [] } } },
    ];
    writeFileSync(recording, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
    const { cli, serverPid, pidFile } = await startWithSleepingServer(
      ["replay", recording, "--timeout", "600000"],
      true,
    );
    cli.child.kill("SIGTERM");
    const run = await cli.done;
    assert.equal(run.signal, null, `replay died of ${run.signal}: ${run.stderr}`);
    assert.equal(run.code, 143, run.stderr);
    assert.ok(existsSync(`${pidFile}.cancelled`), "the server never saw the cancellation");
    assert.ok(await processGoneWithin(serverPid, 2_000), "SIGTERM left the server running");
  });

  it("shell: SIGTERM cancels the running call, ends the server, exits 143", async () => {
    const pidFile = join(dir, "shell-server.pid");
    const shell = spawn(
      process.execPath,
      [CLI, "shell", "--", process.execPath, STUBBORN, pidFile, "--polite"],
      { stdio: ["pipe", "ignore", "pipe"] },
    );
    if (shell.pid !== undefined) started.add(shell.pid);
    let stderr = "";
    shell.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      shell.once("close", (code, signal) => resolve({ code, signal })),
    );
    // Scripted input, left open: the shell is waiting on the call when the signal comes.
    shell.stdin.write("call sleep {}\n");
    const serverPid = await waitFor("the server's sleep call", () =>
      existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : undefined,
    );
    started.add(serverPid);
    shell.kill("SIGTERM");
    const status = await exited;
    assert.deepEqual(status, { code: 143, signal: null }, stderr);
    assert.ok(existsSync(`${pidFile}.cancelled`), "the server never saw the cancellation");
    assert.ok(await processGoneWithin(serverPid, 2_000), "SIGTERM left the server running");
  });

  it("gateway: SIGHUP stops it like SIGTERM (exit 0) and ends the child", async () => {
    const { gateway } = await startGateway([STUBBORN, join(dir, "gateway-hup.pid"), "--polite"]);
    if (gateway.child.pid !== undefined) started.add(gateway.child.pid);
    const childPid = Number(/child running \(pid (\d+)\)/.exec(gateway.stderr())?.[1]);
    started.add(childPid);
    gateway.child.kill("SIGHUP");
    const run = await gateway.done;
    assert.equal(run.signal, null, `the gateway died of ${run.signal}`);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(await processGoneWithin(childPid, 2_000), "SIGHUP left the child running");
  });

  it("gateway: killed outright (SIGKILL), it takes the child along", async () => {
    const { gateway } = await startGateway([STUBBORN, join(dir, "gateway-kill.pid")]);
    if (gateway.child.pid !== undefined) started.add(gateway.child.pid);
    const childPid = Number(/child running \(pid (\d+)\)/.exec(gateway.stderr())?.[1]);
    started.add(childPid);
    gateway.child.kill("SIGKILL");
    await gateway.done;
    assert.ok(await processGoneWithin(childPid, 10_000), "the child outlived a SIGKILLed gateway");
  });
});
