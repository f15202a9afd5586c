/**
 * The child's log messages through `mcpwire gateway`: they reach the HTTP call being served
 * (on its own stream, at its own level), never a client that did not ask; a legacy child is
 * set to the most verbose level any HTTP client wants. Child: our everything-server.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { McpClient } from "../../src/client/index.js";
import { connectClient, OUR_EVERYTHING, type RunningGateway, startGateway } from "./gateway-run.js";
import { stop } from "./run-cli.js";

type Seen = Array<{ method: string; params: Record<string, unknown> }>;

const logs = (seen: Seen) =>
  seen.filter((n) => n.method === "notifications/message").map((n) => n.params.data);

const THREE_LOGS = ["Tool execution started", "Tool processing data", "Tool execution completed"];

async function callLogging(client: McpClient): Promise<void> {
  const result = await client.callTool("test_tool_with_logging");
  assert.notEqual(result.isError, true);
}

for (const childEra of ["modern", "legacy"] as const) {
  describe(`gateway logs, ${childEra} child`, () => {
    let run: RunningGateway;
    before(async () => {
      run = await startGateway(OUR_EVERYTHING, ["--era", childEra, "--verbose"]);
    });
    after(() => stop(run.gateway));

    it("a modern call gets the logs it asked for; other calls get none", async () => {
      const asking = await connectClient(run.url, "modern", { logLevel: "info" });
      const silent = await connectClient(run.url, "modern");
      const picky = await connectClient(run.url, "modern", { logLevel: "error" });
      try {
        if (childEra === "modern") {
          // A modern child logs only for calls that asked, so these logs can only be one call's.
          await Promise.all([callLogging(asking.client), callLogging(silent.client)]);
        } else {
          await callLogging(asking.client);
          await callLogging(silent.client);
        }
        assert.deepEqual(logs(asking.seen), THREE_LOGS);
        assert.deepEqual(logs(silent.seen), []);
        await callLogging(picky.client);
        assert.deepEqual(logs(picky.seen), []);
      } finally {
        await Promise.all([asking, silent, picky].map(({ client }) => client.close()));
      }
    });

    it("a legacy session gets the logs at the level it set", async () => {
      const info = await connectClient(run.url, "legacy");
      const error = await connectClient(run.url, "legacy");
      try {
        await info.client.setLogLevel("info");
        await error.client.setLogLevel("error");
        await callLogging(info.client);
        await callLogging(error.client);
        assert.deepEqual(logs(info.seen), THREE_LOGS);
        assert.deepEqual(logs(error.seen), []);
      } finally {
        await info.client.close();
        await error.client.close();
      }
    });

    if (childEra === "legacy") {
      it("sets the child to the most verbose level wanted, lowered for a call that needs it", async () => {
        const setLevels = () =>
          [
            ...run.gateway
              .stderr()
              .matchAll(/^-> .*"method":"logging\/setLevel".*"level":"(\w+)"/gm),
          ].map((match) => match[1]);
        const legacy = await connectClient(run.url, "legacy");
        const modern = await connectClient(run.url, "modern", { logLevel: "debug" });
        try {
          await legacy.client.setLogLevel("critical");
          assert.equal(setLevels().at(-1), "critical");
          await callLogging(modern.client);
          // Lowered to debug before the call went out, so its info logs were sent.
          const wire = run.gateway.stderr();
          const call = wire.lastIndexOf('"name":"test_tool_with_logging"');
          const lowered = wire.lastIndexOf(
            '"method":"logging/setLevel","params":{"level":"debug"}',
          );
          assert.ok(lowered >= 0 && lowered < call, wire);
          assert.deepEqual(logs(modern.seen), THREE_LOGS);
          assert.deepEqual(logs(legacy.seen), []);
          // Once no call needs more, back to what the legacy session asked for.
          await legacy.client.setLogLevel("alert");
          assert.equal(setLevels().at(-1), "alert");
        } finally {
          await legacy.client.close();
          await modern.client.close();
        }
      });
    }
  });
}
