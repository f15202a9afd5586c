/**
 * The CLI and the tasks extension, against the everything server over Streamable HTTP: `call`
 * follows a task to its result and shows its status on stderr; `task get|cancel` take its id.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  EVERYTHING_SERVER,
  listeningAddress,
  type Running,
  runCli,
  startProcess,
  stop,
} from "./run-cli.js";

describe("mcpwire call / task with tasks", () => {
  let server: Running;
  let url: string;

  before(async () => {
    server = startProcess(process.execPath, [EVERYTHING_SERVER, "--http", "--port", "0"]);
    url = await listeningAddress(server, "stdout");
  });
  after(() => stop(server));

  it("call prints a task's final result and its status changes on stderr", async () => {
    const run = await runCli(["call", url, "slow_compute", '{"seconds":1,"label":"cli"}']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Computed cli after 1 s/);
    assert.match(run.stderr, /^task [0-9a-f-]{36} working$/m);
    assert.match(run.stderr, /^task [0-9a-f-]{36} completed$/m);
  });

  it("call --no-wait prints the task's id and exits; task get follows it", async () => {
    const run = await runCli(["call", url, "slow_compute", '{"seconds":0.2}', "--no-wait"]);
    assert.equal(run.code, 0, run.stderr);
    const taskId = /^task ([0-9a-f-]{36})$/m.exec(run.stdout)?.[1];
    assert.ok(taskId, run.stdout);
    const shown = await runCli(["task", url, "get", taskId]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`^task ${taskId}: (working|completed)$`, "m"));
  });

  it("task get shows a task, task cancel cancels it", async () => {
    // A 60 s task made by another client (a raw request): its id is all the CLI needs.
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "slow_compute",
        arguments: { seconds: 60 },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {
            extensions: { "io.modelcontextprotocol/tasks": {} },
          },
        },
      },
    };
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "slow_compute",
      },
      body: JSON.stringify(body),
    });
    const { result } = (await response.json()) as { result: { taskId: string } };
    const shown = await runCli(["task", url, "get", result.taskId]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`^task ${result.taskId}: working$`, "m"));
    const cancel = await runCli(["task", url, "cancel", result.taskId]);
    assert.equal(cancel.code, 0, cancel.stderr);
    const after = JSON.parse((await runCli(["task", url, "get", result.taskId, "--json"])).stdout);
    assert.equal(after.status, "cancelled");
    const again = await runCli(["task", url, "cancel", result.taskId]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /had already ended \(cancelled\); nothing to cancel/);
    const unknown = await runCli(["task", url, "get", "no-such-task"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /-32602/);
    const bad = await runCli(["task", url, "stop", result.taskId]);
    assert.equal(bad.code, 2);
  });
});
