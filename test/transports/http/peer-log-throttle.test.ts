/**
 * A peer cannot flood the server's log: 1,000 bogus replies POSTed into a legacy session (ids
 * the server never sent) reach the logger as one line, then one summary that says how many
 * more there were. Peer text in those lines is shown escaped.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpServer } from "../../../src/server/index.js";
import { serveHttp } from "../../../src/transports/http/node-adapter.js";
import { waitFor } from "../../helpers/poll.js";
import { RawSession } from "./legacy-helpers.js";

const BOGUS_REPLIES = 1_000;

describe("peer-caused log lines are throttled", () => {
  it("1,000 replies to unknown ids: one line, then a summary counting the other 999", async () => {
    const lines: string[] = [];
    const mcp = new McpServer({
      serverInfo: { name: "throttled", version: "1" },
      onError: (error) => lines.push(error.message),
      // Long enough that the whole flood falls in one window; close() says the rest.
      peerLogIntervalMs: 600_000,
    });
    const served = await serveHttp(mcp);
    try {
      const session = new RawSession(served.url);
      await session.open();
      for (let sent = 0; sent < BOGUS_REPLIES; sent += 50) {
        const batch = [];
        for (let i = sent; i < sent + 50; i++) {
          const bogus = {
            jsonrpc: "2.0",
            id: `bogus-${i}`,
            error: { code: -1, message: "\u001b]0;owned\u0007" },
          };
          batch.push(session.post(bogus).then((response) => response.status));
        }
        assert.deepEqual(new Set(await Promise.all(batch)), new Set([202]));
      }
      assert.equal(lines.length, 1, lines.slice(0, 3).join("\n"));
      assert.match(lines[0]!, /reply to unknown request id "bogus-0"/);
      // The peer's escape sequence arrives as visible text, not as control characters.
      assert.ok(lines[0]!.includes("\\x1b]0;owned\\x07"));
      assert.ok([...lines[0]!].every((char) => char.charCodeAt(0) >= 0x20));
      await served.close();
      await mcp.close();
      assert.equal(lines.length, 2, lines.join("\n"));
      assert.match(lines[1]!, /^999 more of "reply to an unknown request id"/);
    } finally {
      await served.close();
    }
  });

  it("a window's summary comes by itself when it closes; every event is logged or counted", async () => {
    const lines: string[] = [];
    const mcp = new McpServer({
      serverInfo: { name: "throttled", version: "1" },
      onError: (error) => lines.push(error.message),
      peerLogIntervalMs: 1_000,
    });
    const served = await serveHttp(mcp);
    try {
      const session = new RawSession(served.url);
      await session.open();
      const bogus = (i: number) => ({ jsonrpc: "2.0", id: 5_000 + i, result: {} });
      const statuses = await Promise.all(
        Array.from({ length: 40 }, (_, i) => session.post(bogus(i)).then((r) => r.status)),
      );
      assert.deepEqual(new Set(statuses), new Set([202]));
      // Whatever the clock did, the 40 events add up: one per line, plus each summary's count.
      const accounted = () =>
        lines.reduce((total, line) => {
          const summary = /^(\d+) more of /.exec(line);
          return total + (summary ? Number(summary[1]) : 1);
        }, 0);
      await waitFor("all 40 peer log events accounted for", async () =>
        accounted() === 40 ? true : undefined,
      );
      assert.ok(lines.length < 40, `${lines.length} lines for 40 events`);
    } finally {
      await served.close();
    }
  });
});
