/**
 * `mcpwire call --task|--no-wait` and `mcpwire task get|cancel|result|list` against 2025-11-25
 * task servers: the everything example in legacy mode (--era legacy), the same task tools
 * behind a guard that binds tasks to a bearer name (so that one command's task is the next
 * command's too), and the official everything server.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import { freePort } from "../helpers/free-port.js";
import {
  EVERYTHING_SERVER,
  listeningAddress,
  type Running,
  runCli,
  startProcess,
  stop,
  waitFor,
} from "./run-cli.js";

const BEARER_SERVER = new URL("../fixtures/bearer-task-server.js", import.meta.url).pathname;
const require = createRequire(import.meta.url);
const OFFICIAL = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const TASK_LINE = /^task ([0-9a-f-]{36})$/m;

describe("mcpwire call / task on the everything example in legacy mode", () => {
  let server: Running;
  let url: string;

  before(async () => {
    server = startProcess(process.execPath, [EVERYTHING_SERVER, "--http", "--port", "0"]);
    url = await listeningAddress(server, "stdout");
  });
  after(() => stop(server));

  it("call --task runs an optional task tool as a 2025-11-25 task, with its statuses", async () => {
    const run = await runCli([
      "call",
      url,
      "slow_compute",
      '{"seconds":0.3,"label":"legacy"}',
      "--era",
      "legacy",
      "--task",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Computed legacy after 0.3 s/);
    assert.match(run.stderr, /^task [0-9a-f-]{36} working$/m);
    assert.match(run.stderr, /^task [0-9a-f-]{36} completed$/m);
  });

  it("call --no-wait prints the task id and exits; another session cannot see it (with a hint)", async () => {
    const run = await runCli([
      "call",
      url,
      "slow_compute",
      '{"seconds":30}',
      "--era",
      "legacy",
      "--no-wait",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const taskId = TASK_LINE.exec(run.stdout)?.[1];
    assert.ok(taskId, run.stdout);
    assert.match(
      run.stderr,
      /hint: a 2025-11-25 server may show an anonymous client's task only to the session/,
    );
    const got = await runCli(["task", url, "get", taskId, "--era", "legacy"]);
    assert.equal(got.code, 1);
    assert.match(got.stderr, /-32602/);
    assert.match(
      got.stderr,
      /hint: a 2025-11-25 server may keep an anonymous client's tasks per session/,
    );
    const listed = await runCli(["task", url, "list", "--era", "legacy"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout.trim(), "no tasks");
  });

  it("task result and list are refused on a modern connection, saying why", async () => {
    const run = await runCli(["task", url, "list"]);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /task list needs a 2025-11-25 server; this one speaks the tasks extension/,
    );
  });
});

describe("mcpwire task on a 2025-11-25 server that binds tasks to who you are", () => {
  let server: Running;
  let url: string;
  const as = (name: string) => ["--era", "legacy", "--header", `Authorization: Bearer ${name}`];

  before(async () => {
    server = startProcess(process.execPath, [BEARER_SERVER]);
    url = await listeningAddress(server, "stdout");
  });
  after(() => stop(server));

  async function started(args: string, name = "ada"): Promise<string> {
    const run = await runCli(["call", url, "slow_compute", args, "--no-wait", ...as(name)]);
    assert.equal(run.code, 0, run.stderr);
    const taskId = TASK_LINE.exec(run.stdout)?.[1];
    assert.ok(taskId, run.stdout);
    return taskId;
  }

  it("get, list and result follow a task made by an earlier command", async () => {
    const taskId = await started('{"seconds":0.5,"label":"later"}');
    const got = await runCli(["task", url, "get", taskId, ...as("ada")]);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, new RegExp(`^task ${taskId}: (working|completed)$`, "m"));
    const listed = await runCli(["task", url, "list", ...as("ada")]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^${taskId} (working|completed)`, "m"));
    const result = await runCli(["task", url, "result", taskId, ...as("ada")]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Computed later after 0.5 s/);
    const json = JSON.parse(
      (await runCli(["task", url, "get", taskId, "--json", ...as("ada")])).stdout,
    );
    assert.equal(json.status, "completed");
    assert.equal(typeof json.ttlMs, "number");
  });

  it("someone else sees none of it", async () => {
    const taskId = await started('{"seconds":0.1}');
    const got = await runCli(["task", url, "get", taskId, ...as("bob")]);
    assert.equal(got.code, 1);
    assert.match(got.stderr, /-32602/);
    const listed = await runCli(["task", url, "list", ...as("bob")]);
    assert.equal(listed.stdout.trim(), "no tasks");
  });

  it("cancel stops a working task; on a task that ended it says so and exits 1", async () => {
    const taskId = await started('{"seconds":60}');
    const cancelled = await runCli(["task", url, "cancel", taskId, ...as("ada")]);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.match(cancelled.stdout, new RegExp(`^task ${taskId} cancelled$`, "m"));
    const again = await runCli(["task", url, "cancel", taskId, ...as("ada")]);
    assert.equal(again.code, 1);
    assert.match(
      again.stderr,
      new RegExp(`task ${taskId} had already ended \\(cancelled\\); nothing to cancel`),
    );
    const result = await runCli(["task", url, "result", taskId, ...as("ada")]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /cancelled/);
  });

  it("a tool error (isError) is a failed task; result prints it and exits 1", async () => {
    const run = await runCli(["call", url, "failing_job", "--no-wait", ...as("ada")]);
    const taskId = TASK_LINE.exec(run.stdout)?.[1];
    assert.ok(taskId, run.stdout + run.stderr);
    const result = await runCli(["task", url, "result", taskId, ...as("ada")]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /The job failed: simulated failure/);
    const got = await runCli(["task", url, "get", taskId, ...as("ada")]);
    assert.match(got.stdout, new RegExp(`^task ${taskId}: failed$`, "m"));
    const cancel = await runCli(["task", url, "cancel", taskId, ...as("ada")]);
    assert.equal(cancel.code, 1);
    assert.match(cancel.stderr, /had already ended \(failed\)/);
  });
});

describe("mcpwire call --no-wait on the official everything server", () => {
  it("prints simulate-research-query's task id and exits", async () => {
    const run = await runCli([
      "call",
      "simulate-research-query",
      '{"topic":"tides"}',
      "--no-wait",
      "--",
      process.execPath,
      OFFICIAL,
      "stdio",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^task [0-9a-f-]+$/m);
    assert.doesNotMatch(run.stdout, /Research Report/);
  });

  it("task list over its Streamable HTTP: a new session has no tasks", async () => {
    const port = await freePort();
    const server = startProcess(process.execPath, [OFFICIAL, "streamableHttp"], {
      env: { PORT: String(port) },
    });
    try {
      await waitFor("the official server to listen", () =>
        server.stderr().includes(`listening on port ${port}`) ? true : undefined,
      );
      const url = `http://127.0.0.1:${port}/mcp`;
      const listed = await runCli(["task", url, "list"]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(listed.stdout.trim(), "no tasks");
    } finally {
      await stop(server);
    }
  });
});
