/**
 * DPoP replay across instances (issue 25.A4): two protected servers behind one resource URL
 * share a RedisDpopReplayCache, so a proof accepted by one is refused by the other (and of the
 * same proof sent to both at once, exactly one is accepted). Without a shared cache each
 * instance remembers only its own proofs: the replay gets through, which docs/cluster.md says.
 */
import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from "jose";
import { type DpopOptions, protectResource } from "../../src/auth/index.js";
import { RedisDpopReplayCache } from "../../src/redis/index.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";
import { type JwtIssuer, startJwtIssuer } from "../auth/jwt-issuer.js";
import { buildProtectedServer, callTool } from "../auth/resource-server-fixtures.js";
import { type SharedRedis, sharedRedis } from "../helpers/redis.js";

describe("DPoP proofs across two instances", () => {
  let redis: SharedRedis;
  let as: JwtIssuer;
  const servers: ServedHttp[] = [];
  let key: Awaited<ReturnType<typeof generateKeyPair>>;
  let jkt: string;

  before(async () => {
    redis = await sharedRedis("DPoP replay across instances");
    as = await startJwtIssuer();
    key = await generateKeyPair("ES256");
    jkt = await calculateJwkThumbprint(await exportJWK(key.publicKey), "sha256");
  });
  after(async () => {
    await Promise.all(servers.map((served) => served.close()));
    await as?.close();
    await redis?.cleanup();
  });

  /** Two instances of one resource (the first one's URL), with `dpop` options each. */
  async function pair(dpop: () => DpopOptions): Promise<[ServedHttp, ServedHttp, string]> {
    const first = await serveHttp(buildProtectedServer().mcp, {
      auth: protectResource({ issuer: as.issuer, dpop: dpop() }),
    });
    const second = await serveHttp(buildProtectedServer().mcp, {
      auth: protectResource({ issuer: as.issuer, resource: first.url, dpop: dpop() }),
    });
    servers.push(first, second);
    return [first, second, first.url];
  }

  async function proof(token: string, resource: string): Promise<string> {
    return new SignJWT({
      htm: "POST",
      htu: resource,
      iat: Math.floor(Date.now() / 1000),
      jti: randomUUID(),
      ath: createHash("sha256").update(token).digest("base64url"),
    })
      .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: await exportJWK(key.publicKey) })
      .sign(key.privateKey);
  }

  const send = (url: string, token: string, dpop: string) =>
    callTool(url, "whoami", `DPoP ${token}`, { DPoP: dpop }).then(async (response) => {
      await response.body?.cancel();
      return {
        status: response.status,
        challenge: response.headers.get("www-authenticate") ?? "",
      };
    });

  it("a proof used on one instance is refused on the other", async () => {
    const shared = () => ({
      replayCache: new RedisDpopReplayCache(redis.client, { prefix: redis.prefix }),
    });
    const [a, b, resource] = await pair(shared);
    const token = await as.mint(resource, { claims: { cnf: { jkt } } });

    const first = await proof(token, resource);
    assert.equal((await send(a.url, token, first)).status, 200);
    const replayed = await send(b.url, token, first);
    assert.equal(replayed.status, 401);
    assert.match(replayed.challenge, /invalid_dpop_proof.*used before/);

    const second = await proof(token, resource);
    assert.equal((await send(b.url, token, second)).status, 200);
    assert.equal((await send(a.url, token, second)).status, 401);

    // Sent to both at once: exactly one accepts it.
    const raced = await proof(token, resource);
    const statuses = (await Promise.all([send(a.url, token, raced), send(b.url, token, raced)]))
      .map((outcome) => outcome.status)
      .sort();
    assert.deepEqual(statuses, [200, 401]);

    // Each proof is remembered only until it could no longer be accepted anyway (60 + 5 s).
    const keys = await redis.keys();
    assert.equal(keys.length, 3);
    for (const name of keys) {
      const ttl = (await redis.client.pTTL(name)) as number;
      assert.ok(ttl > 0 && ttl <= 65_000, `${name}: ${ttl}`);
    }
  });

  it("without a shared cache each instance knows only its own proofs (why the option exists)", async () => {
    const [a, b, resource] = await pair(() => ({}));
    const token = await as.mint(resource, { claims: { cnf: { jkt } } });
    const once = await proof(token, resource);
    assert.equal((await send(a.url, token, once)).status, 200);
    assert.equal((await send(a.url, token, once)).status, 401);
    assert.equal((await send(b.url, token, once)).status, 200);
  });
});
