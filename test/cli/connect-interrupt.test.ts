/**
 * Ctrl-C, SIGTERM and SIGHUP while the command is still connecting (the server never answers
 * the era probe): the command stops at once with 128 + the signal, instead of waiting out the
 * connect timeout; it starts no second server and sends no `initialize` after the probe it gave
 * up, and leaves nothing running.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, it } from "node:test";
import { killLeftovers, processGoneWithin } from "../helpers/process-alive.js";
import { startCli, waitFor } from "./run-cli.js";

const SILENT_SERVER = new URL("../fixtures/cli-silent-server.js", import.meta.url).pathname;
const started = new Set<number>();
after(() => killLeftovers(started));

const PROBE_SENT = /^-> .*"method":"server\/discover"/m;

describe("stopping the command while it connects", () => {
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    it(`${signal} during the era probe of a silent stdio server: exit ${code}, one server, none left`, async () => {
      // A connect timeout the test would notice waiting out (and the probe's own, 3 s, is capped
      // by it): only the signal may end this run.
      const cli = startCli([
        "discover",
        "--verbose",
        "--timeout",
        "20000",
        "--",
        process.execPath,
        SILENT_SERVER,
      ]);
      if (cli.child.pid !== undefined) started.add(cli.child.pid);
      const serverPid = await waitFor("the silent server and the probe", () => {
        const pid = /silent server pid (\d+)/.exec(cli.stderr())?.[1];
        return pid !== undefined && PROBE_SENT.test(cli.stderr()) ? Number(pid) : undefined;
      });
      started.add(serverPid);
      cli.child.kill(signal);
      const run = await cli.done;
      assert.equal(run.signal, null, `the CLI died of ${run.signal}: ${run.stderr}`);
      assert.equal(run.code, code, run.stderr);
      assert.equal(run.stderr.match(/silent server pid/g)?.length, 1, "a second server started");
      assert.doesNotMatch(run.stderr, /"method":"initialize"/);
      assert.doesNotMatch(run.stderr, /did not finish the MCP handshake/);
      assert.ok(await processGoneWithin(serverPid, 2_000), `${signal} left the server running`);
    });
  }

  it("Ctrl-C while an HTTP server holds the probe: one request only, nothing sent after it", async () => {
    const bodies: string[] = [];
    const held = new Set<ServerResponse>();
    const http = createServer((request: IncomingMessage, response: ServerResponse) => {
      let body = "";
      request.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      request.on("end", () => bodies.push(`${request.method} ${body}`));
      held.add(response); // never answered
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const { port } = http.address() as AddressInfo;
    try {
      const cli = startCli(["discover", "--timeout", "20000", `http://127.0.0.1:${port}/mcp`]);
      if (cli.child.pid !== undefined) started.add(cli.child.pid);
      await waitFor("the probe at the HTTP server", () => (bodies.length > 0 ? true : undefined));
      cli.child.kill("SIGINT");
      const run = await cli.done;
      assert.equal(run.code, 130, run.stderr);
      assert.equal(
        bodies.length,
        1,
        `requests after the interrupt: ${bodies.slice(1).join(" | ")}`,
      );
      assert.match(bodies[0]!, /^POST .*"method":"server\/discover"/);
    } finally {
      for (const response of held) response.destroy();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});
