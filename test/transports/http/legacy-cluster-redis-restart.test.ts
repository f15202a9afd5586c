/**
 * A legacy cluster whose Redis is killed and restarted mid-run (a private redis-server without
 * persistence, so it comes back empty): while it is down, sessions an instance holds keep
 * working, what needs Redis (a new session, an unknown one, DELETE) fails cleanly with 503
 * (nothing hangs); once it is back the
 * instances serve again without a restart of their own, and a session whose record was lost
 * is "not found" (404: a legacy client starts a new one), never half there.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { waitFor } from "../../helpers/poll.js";
import { type PrivateRedis, startPrivateRedis } from "../../helpers/redis.js";
import type { Wire } from "./http-helpers.js";
import { privateRedisState, startCluster, type TestCluster } from "./legacy-cluster-helpers.js";
import { call, RawSession } from "./legacy-helpers.js";

async function where(raw: RawSession, id: number): Promise<{ status: number; instance?: string }> {
  const response = await raw.post(call("where", {}, id));
  if (response.status !== 200) {
    await response.body?.cancel();
    return { status: response.status };
  }
  const body: Wire = await response.json();
  return { status: 200, instance: JSON.parse(body.result.content[0].text).instance };
}

describe("a legacy cluster across a Redis restart", { timeout: 60_000 }, () => {
  let redis: PrivateRedis;
  let cluster: TestCluster;

  before(async () => {
    redis = await startPrivateRedis("legacy-cluster-redis-restart.test");
    cluster = await startCluster(["a", "b", "c"], {}, privateRedisState(redis.url));
  });
  after(async () => {
    await cluster?.close();
    await redis?.stop();
  });

  it("serves held sessions while Redis is down, refuses the rest cleanly, recovers by itself", async () => {
    const raw = new RawSession(cluster.instance("a").url);
    await raw.open();
    assert.deepEqual(await where(cluster.at(raw, "b"), 1), { status: 200, instance: "b" });

    await redis.kill();
    // Held on both instances: served without Redis.
    assert.deepEqual(await where(raw, 2), { status: 200, instance: "a" });
    assert.deepEqual(await where(cluster.at(raw, "b"), 3), { status: 200, instance: "b" });
    // A new session cannot be shared: 503, and no session id handed out.
    const refused = await new RawSession(cluster.instance("b").url).post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "x", version: "0" },
      },
    });
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("mcp-session-id"), null);
    await refused.body?.cancel();
    // An unknown session cannot be looked up: 503, not a false 404.
    const stranger = new RawSession(cluster.instance("a").url);
    stranger.sessionId = "0d6f4d2e-0000-4000-8000-000000000000";
    assert.equal((await where(stranger, 4)).status, 503);
    // Ending it cannot be shared either: 503, not a 204 for a session that lives on elsewhere.
    const ending = await cluster.at(raw, "b").delete();
    assert.equal(ending.status, 503);
    await ending.body?.cancel();

    await redis.restart();
    // Back without restarting the instances: a new session works across both.
    const fresh = new RawSession(cluster.instance("b").url);
    await waitFor("a new session across both instances", async () => {
      try {
        await fresh.open();
        return true;
      } catch {
        return undefined;
      }
    });
    // Each instance's Redis client reconnects on its own clock (b's is back, a's may not be
    // yet, on a loaded machine): until then a answers 503, and then it serves.
    const atA = await waitFor("a serving the new session", async () => {
      const answer = await where(cluster.at(fresh, "a"), 5);
      return answer.status === 503 ? undefined : answer;
    });
    assert.deepEqual(atA, { status: 200, instance: "a" });
    // The old session's record died with Redis's memory: an instance without a copy finds
    // nothing to load and says so (the client opens a new session), rather than half a session.
    const atC = await waitFor("c back on Redis", async () => {
      const answer = await where(cluster.at(raw, "c"), 6);
      return answer.status === 503 ? undefined : answer;
    });
    assert.equal(atC.status, 404);
  });
});
