import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { LocalError } from "../../../src/jsonrpc/errors.js";
import {
  RestartPolicy,
  type SupervisedStdioOptions,
  SupervisedStdioTransport,
} from "../../../src/transports/stdio/supervisor.js";
import { until } from "../../helpers/poll.js";
import { isAlive, RpcPeer, runProgram } from "../../helpers/stdio-rpc.js";

const echoFixture = fileURLToPath(new URL("../../fixtures/child-echo.js", import.meta.url));

describe("RestartPolicy", () => {
  it("doubles the delay per restart in the window, up to the cap", () => {
    let now = 0;
    const policy = new RestartPolicy(
      { maxRestarts: 6, windowMs: 60_000, initialDelayMs: 100, maxDelayMs: 1000 },
      () => now,
    );
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      const decision = policy.onFailure();
      assert.ok(decision.restart);
      assert.equal(decision.attempt, i + 1);
      delays.push(decision.delayMs);
      now += 1000;
    }
    assert.deepEqual(delays, [100, 200, 400, 800, 1000, 1000]);
  });

  it("gives up when the window already holds maxRestarts restarts, naming the cap", () => {
    let now = 0;
    const policy = new RestartPolicy({ maxRestarts: 2, windowMs: 10_000 }, () => now);
    assert.equal(policy.onFailure().restart, true);
    now = 1000;
    assert.equal(policy.onFailure().restart, true);
    now = 2000;
    const decision = policy.onFailure();
    assert.equal(decision.restart, false);
    assert.match(
      decision.restart ? "" : decision.reason,
      /2 restarts within 10000 ms.*maxRestarts 2/,
    );
    assert.equal(policy.recentRestarts, 2);
  });

  it("forgets restarts older than the window, so the cap and the backoff start over", () => {
    let now = 0;
    const policy = new RestartPolicy(
      { maxRestarts: 2, windowMs: 10_000, initialDelayMs: 50 },
      () => now,
    );
    policy.onFailure();
    now = 5000;
    policy.onFailure();
    now = 10_000; // the first restart has left the window; the second has not
    const third = policy.onFailure();
    assert.ok(third.restart);
    assert.equal(third.delayMs, 100);
    now = 40_000; // a whole quiet window
    assert.equal(policy.recentRestarts, 0);
    const fresh = policy.onFailure();
    assert.ok(fresh.restart);
    assert.equal(fresh.delayMs, 50);
    assert.equal(fresh.attempt, 1);
  });

  it("uses the documented defaults and never restarts with maxRestarts 0", () => {
    const defaults = new RestartPolicy();
    assert.deepEqual(
      [defaults.maxRestarts, defaults.windowMs, defaults.initialDelayMs, defaults.maxDelayMs],
      [5, 60_000, 100, 5000],
    );
    assert.equal(new RestartPolicy({ maxRestarts: 0 }).onFailure().restart, false);
    assert.throws(() => new RestartPolicy({ windowMs: -1 }), RangeError);
    assert.throws(() => new RestartPolicy({ initialDelayMs: Number.NaN }), RangeError);
  });
});

const open: SupervisedStdioTransport[] = [];
after(async () => {
  await Promise.all(open.map((transport) => transport.close()));
});

function supervised(options: Partial<SupervisedStdioOptions> = {}): {
  transport: SupervisedStdioTransport;
  peer: RpcPeer;
} {
  const transport = new SupervisedStdioTransport({
    command: process.execPath,
    args: [echoFixture],
    ...options,
    restart: { initialDelayMs: 20, ...options.restart },
  });
  open.push(transport);
  return { transport, peer: new RpcPeer(transport) };
}

const isExitedError = (error: unknown): boolean =>
  error instanceof LocalError && error.kind === "exited" && /code 7/.test(error.message);

describe("SupervisedStdioTransport", { timeout: 60_000 }, () => {
  it("reports interrupted, restarts, resumes, and the retry succeeds on the fresh child", async () => {
    const { transport, peer } = supervised();
    const first = (await peer.request("echo")).pid as number;
    await assert.rejects(peer.request("crash", { code: 7, stderr: "dying\n" }), isExitedError);
    assert.equal(peer.interruptions.length, 1);
    assert.ok(isExitedError(peer.interruptions[0]));
    assert.match(peer.interruptions[0]!.message, /dying/);
    // Sent while the restart is pending: waits for the fresh child instead of failing.
    assert.deepEqual(peer.events, ["interrupted"]);
    const retried = await peer.request("echo", { retry: true });
    assert.deepEqual(retried.params, { retry: true });
    assert.notEqual(retried.pid, first);
    assert.deepEqual(peer.events, ["interrupted", "resumed"]);
    assert.equal(transport.restarts, 1);
    assert.equal(transport.pid, retried.pid);
    assert.equal(isAlive(first), false);
    await transport.close();
    assert.deepEqual(peer.closedInfo, {});
    assert.deepEqual(peer.events, ["interrupted", "resumed", "closed"]);
  });

  it("sends from resumed() go out before the sends that waited for the restart", async () => {
    const { transport, peer } = supervised({ restart: { initialDelayMs: 200 } });
    await peer.request("echo");
    const order: string[] = [];
    peer.onResumed = () => {
      void peer.request("echo", { from: "resumed" }).then(() => order.push("resumed"));
    };
    await assert.rejects(peer.request("crash", { code: 7 }), isExitedError);
    const waited = peer.request("echo", { from: "waiting" }).then(() => order.push("waiting"));
    await waited;
    await until(() => order.length === 2, "both replies");
    assert.deepEqual(order, ["resumed", "waiting"]);
    await transport.close();
  });

  it("gives up once the restart cap is exceeded, closing with an error that names it", async () => {
    const { transport, peer } = supervised({ restart: { maxRestarts: 2, windowMs: 60_000 } });
    for (let crash = 1; crash <= 3; crash++) {
      await peer.request("echo");
      await assert.rejects(peer.request("crash", { code: 7 }), LocalError);
    }
    const info = await transport.closed;
    assert.ok(info.error instanceof LocalError);
    assert.equal(info.error.kind, "exited");
    assert.match(info.error.message, /gave up restarting/);
    assert.match(info.error.message, /maxRestarts 2/);
    assert.match(info.error.message, /code 7/);
    assert.deepEqual(peer.events, ["interrupted", "resumed", "interrupted", "resumed", "closed"]);
    assert.equal(transport.restarts, 2);
    await assert.rejects(peer.request("echo"), (error: unknown) => error === info.error);
    await transport.close();
  });

  it("close() during the restart delay stops supervising and fails the waiting sends", async () => {
    const { transport, peer } = supervised({ restart: { initialDelayMs: 60_000 } });
    await peer.request("echo");
    await assert.rejects(peer.request("crash", { code: 7 }), isExitedError);
    const waiting = peer.request("echo");
    await transport.close();
    await assert.rejects(waiting, (error: unknown) => {
      return error instanceof LocalError && error.kind === "closed";
    });
    assert.deepEqual(peer.events, ["interrupted", "closed"]);
    assert.equal(transport.restarts, 0);
  });

  it("leaves nothing behind after a restart and close(): the program exits by itself", async () => {
    const { pids, restarts } = (await runProgram("supervised")) as {
      pids: number[];
      restarts: number;
    };
    assert.equal(restarts, 1);
    assert.notEqual(pids[0], pids[1]);
    for (const pid of pids) assert.equal(isAlive(pid), false);
  });

  it("does not retry a command that cannot be started at all", async () => {
    const transport = new SupervisedStdioTransport({ command: "mcpwire-no-such-command-77b1" });
    open.push(transport);
    const peer = new RpcPeer(transport);
    const info = await transport.closed;
    assert.ok(info.error instanceof LocalError);
    assert.match(info.error.message, /ENOENT/);
    assert.deepEqual(peer.events, ["closed"]);
    await transport.close();
  });
});
