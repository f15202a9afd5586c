/**
 * A legacy child that asks its client something while no HTTP call waits (here: an
 * elicitation sent on its own, after the call that set it off has been answered). The gateway
 * hands it to a legacy HTTP session that declared the capability, on its GET stream, or answers
 * the child with an error saying why nobody can.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { connectClient, fixture, type RunningGateway, startGateway } from "./gateway-run.js";
import { stop, waitFor } from "./run-cli.js";

describe("gateway: a legacy child's question that no call waits on", () => {
  let run: RunningGateway;
  let outcomes = 0;
  /** The child's next "outcome <json>" stderr line (relayed by the gateway as [child] …). */
  const nextOutcome = async (): Promise<Record<string, unknown>> => {
    const index = outcomes++;
    const line = await waitFor("the child's outcome", () => {
      const all = [...run.gateway.stderr().matchAll(/^\[child\] outcome (.*)$/gm)];
      return all[index]?.[1];
    });
    return JSON.parse(line) as Record<string, unknown>;
  };

  before(async () => {
    run = await startGateway([fixture("gateway-asking-server")]);
  });
  after(() => stop(run.gateway));

  it("answers the child with an error when no legacy session declared the capability", async () => {
    const modern = await connectClient(run.url, "modern", {
      handlers: { elicitation: () => ({ action: "decline" }) },
    });
    const legacy = await connectClient(run.url, "legacy"); // no elicitation capability
    try {
      await modern.client.callTool("ask_later", { delayMs: 50 });
      const outcome = await nextOutcome();
      assert.match(
        JSON.stringify(outcome),
        /no HTTP client of the gateway can answer elicitation\/create/,
      );
    } finally {
      await modern.client.close();
      await legacy.client.close();
    }
  });

  it("routes it to a legacy session that declared the capability, over its GET stream", async () => {
    const asked: string[] = [];
    const legacy = await connectClient(run.url, "legacy", {
      handlers: {
        elicitation: (params) => {
          asked.push(String(params.message));
          return { action: "accept", content: { name: "ada" } };
        },
      },
    });
    try {
      await legacy.client.listTools(); // the session is up, its GET stream opening
      await legacy.client.callTool("ask_later", { delayMs: 300 });
      const outcome = await nextOutcome();
      assert.deepEqual(outcome, { answer: { action: "accept", content: { name: "ada" } } });
      assert.deepEqual(asked, ["Asked on my own"]);
    } finally {
      await legacy.client.close();
    }
  });

  it("a roots/list during a call is the caller's roots, or none when it has no roots", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const without = await connectClient(run.url, era);
      const withRoots = await connectClient(run.url, era, {
        handlers: { roots: () => [{ uri: "file:///srv/project" }] },
      });
      try {
        const none = await without.client.callTool("list_roots", {});
        assert.deepEqual(JSON.parse((none.content[0] as { text: string }).text), { roots: [] });
        const some = await withRoots.client.callTool("list_roots", {});
        assert.deepEqual(JSON.parse((some.content[0] as { text: string }).text), {
          roots: [{ uri: "file:///srv/project" }],
        });
      } finally {
        await without.client.close();
        await withRoots.client.close();
      }
    }
    // Neither is a failure worth a line.
    assert.doesNotMatch(run.gateway.stderr(), /roots/);
  });
});
