import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  listeningAddress,
  type Running,
  runCli,
  startCli,
  startProcess,
  stop,
  waitFor,
} from "./run-cli.js";

const FIXTURE = new URL("../fixtures/cli-socket-server.js", import.meta.url).pathname;

describe("mcpwire verbs against a tcp:// server", () => {
  let server: Running;
  let address: string;

  before(async () => {
    server = startProcess(process.execPath, [FIXTURE]);
    address = await listeningAddress(server, "stdout");
  });
  after(() => stop(server));

  it("discover and call over TCP", async () => {
    const discover = await runCli(["discover", address, "--json"]);
    assert.equal(discover.code, 0, discover.stderr);
    assert.equal(JSON.parse(discover.stdout).serverInfo.name, "cli-socket-fixture");
    const call = await runCli(["call", address, "echo", '{"text":"over tcp"}']);
    assert.equal(call.code, 0, call.stderr);
    assert.equal(call.stdout, "over tcp\n");
    const failed = await runCli(["call", address, "fail"]);
    assert.equal(failed.code, 1);
    assert.equal(failed.stdout, "tool error:\nit went wrong\n");
  });

  for (const era of ["modern", "legacy"]) {
    it(`Ctrl-C during a slow call cancels it on the wire and exits 130 (${era})`, async () => {
      const before = server.stdout().length;
      const cli = startCli(["call", address, "slow", "--verbose", "--era", era]);
      // The tool has started once its first progress notification is shown.
      await waitFor("the slow tool to start", () =>
        /^progress 1\/2 started$/m.test(cli.stderr()) ? true : undefined,
      );
      cli.child.kill("SIGINT");
      const run = await cli.done;
      assert.equal(run.code, 130, run.stderr);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /^-> \{"jsonrpc":"2\.0","method":"notifications\/cancelled"/m);
      // The server's handler was aborted by the cancellation, not by the connection closing.
      const seen = await waitFor(
        "the server to see the cancellation",
        () => /aborted: .*\n/.exec(server.stdout().slice(before))?.[0],
      );
      assert.match(seen, /^aborted: aborted: /);
      assert.doesNotMatch(seen, /closed/);
    });
  }
});

describe("mcpwire verbs against a unix: server", () => {
  const directory = mkdtempSync(join(tmpdir(), "mcpwire-cli-"));
  let server: Running;

  before(async () => {
    server = startProcess(process.execPath, [FIXTURE, `unix:${join(directory, "mcp.sock")}`]);
    await listeningAddress(server, "stdout");
  });
  after(async () => {
    await stop(server);
    rmSync(directory, { recursive: true, force: true });
  });

  it("calls a tool over a Unix socket, in both eras", async () => {
    for (const era of ["modern", "legacy"]) {
      const run = await runCli([
        "call",
        `unix:${join(directory, "mcp.sock")}`,
        "echo",
        '{"text":"local"}',
        "--era",
        era,
      ]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "local\n");
    }
  });
});
