/**
 * A flood of made-up tokens at a resource server that introspects must not become a flood at
 * the authorization server (issue 32.B2): requests at once are capped and the rest queue (a
 * bounded queue: beyond it 503), refusals are remembered briefly, identical questions in flight
 * share one request, and an answer too big to be one is refused unread.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, afterEach, before, describe, it } from "node:test";
import {
  type IntrospectionOptions,
  InvalidTokenError,
  tokenIntrospection,
} from "../../src/auth/index.js";
import {
  type IntrospectionEndpoint,
  startIntrospectionEndpoint,
} from "./introspection-endpoint.js";
import { callTool, type Protected, startProtected } from "./resource-server-fixtures.js";

const randomToken = () => randomBytes(24).toString("base64url");
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("introspection under a flood of tokens", () => {
  let as: IntrospectionEndpoint;
  let rs: Protected | undefined;
  const reported: string[] = [];
  before(async () => {
    as = await startIntrospectionEndpoint();
  });
  afterEach(async () => {
    as.release();
    await rs?.close();
    rs = undefined;
    reported.length = 0;
  });
  after(() => as.close());

  const options = (more: Partial<IntrospectionOptions> = {}): IntrospectionOptions => ({
    issuer: as.issuer,
    endpoint: as.endpoint,
    clientId: as.client.id,
    clientSecret: as.client.secret,
    ...more,
  });
  const protect = async (more: Partial<IntrospectionOptions>) => {
    rs = await startProtected({
      issuer: as.issuer,
      verifier: tokenIntrospection(options(more)),
      onError: (error) => reported.push(error.message),
    });
    return rs;
  };

  it("200 requests with random tokens: at most maxConcurrentRequests introspections at once, each token asked once, all 401", async () => {
    // Long waits and a long negative cache: on a loaded machine the flood itself can outlast
    // the 5 s defaults (queued requests would then get 503, remembered refusals be forgotten).
    const { url } = await protect({
      maxConcurrentRequests: 4,
      negativeCacheMs: 600_000,
      maxQueueWaitMs: 600_000,
      timeoutMs: 600_000,
    });
    const before = as.stats.calls;
    as.stats.maxRunning = 0;
    as.hold();
    const tokens = Array.from({ length: 200 }, randomToken);
    const answers = Promise.all(tokens.map((token) => callTool(url, "whoami", `Bearer ${token}`)));
    await as.running(4);
    // Give whatever is not held back by the cap time to reach the endpoint.
    await pause(200);
    as.release();
    const statuses = (await answers).map((response) => response.status);
    assert.deepEqual(statuses, Array(200).fill(401));
    assert.equal(as.stats.maxRunning, 4);
    assert.equal(as.stats.calls - before, 200);

    // The same tokens again: refusals are remembered (negativeCacheMs), nothing is asked.
    const again = await Promise.all(
      tokens.slice(0, 50).map((token) => callTool(url, "whoami", `Bearer ${token}`)),
    );
    assert.deepEqual(
      again.map((response) => response.status),
      Array(50).fill(401),
    );
    assert.equal(as.stats.calls - before, 200);
  });

  it("beyond the queue (maxQueuedRequests) a request gets 503 at once, and the endpoint sees no more", async () => {
    const { url } = await protect({
      maxConcurrentRequests: 2,
      maxQueuedRequests: 3,
      maxQueueWaitMs: 600_000,
      timeoutMs: 600_000,
    });
    const before = as.stats.calls;
    as.hold();
    const pending = Array.from({ length: 20 }, () =>
      callTool(url, "whoami", `Bearer ${randomToken()}`),
    );
    await as.running(2);
    const busy: Response[] = [];
    // 2 running and 3 waiting: the 15 others are answered while the endpoint still holds.
    await new Promise<void>((resolve) => {
      for (const answer of pending) {
        void answer.then((response) => {
          if (response.status === 503) busy.push(response);
          if (busy.length === 15) resolve();
        });
      }
    });
    assert.equal(busy[0]?.headers.get("retry-after"), "5");
    as.release();
    const statuses = (await Promise.all(pending)).map((response) => response.status);
    assert.equal(statuses.filter((status) => status === 401).length, 5);
    assert.equal(as.stats.calls - before, 5);
    assert.match(reported[0] ?? "", /2 introspection requests running and 3 waiting/);
  });

  it("by default the failures go to stderr as one line per kind, not one per request", async () => {
    rs = await startProtected({
      issuer: as.issuer,
      verifier: tokenIntrospection(
        options({ maxConcurrentRequests: 1, maxQueuedRequests: 1, maxQueueWaitMs: 600_000 }),
      ),
    });
    const { url } = rs;
    const lines: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => lines.push(String(chunk)) > 0) as never;
    try {
      as.hold();
      const pending = Array.from({ length: 12 }, () =>
        callTool(url, "whoami", `Bearer ${randomToken()}`),
      );
      await as.running(1);
      await new Promise<void>((resolve) => {
        let busy = 0;
        for (const answer of pending) {
          void answer.then((response) => {
            if (response.status === 503 && ++busy === 10) resolve();
          });
        }
      });
      as.release();
      await Promise.all(pending);
    } finally {
      process.stderr.write = write;
    }
    const reports = lines.filter((line) => line.includes("cannot check an access token"));
    assert.equal(reports.length, 1, lines.join(""));
  });

  it("a request waits in the queue at most maxQueueWaitMs, then cannot be checked", async () => {
    const url = "http://127.0.0.1:1/mcp";
    const verifier = tokenIntrospection(options({ maxConcurrentRequests: 1, maxQueueWaitMs: 100 }));
    as.hold();
    const first = verifier.verify(randomToken(), url).catch((error: unknown) => error);
    await as.running(1);
    await assert.rejects(verifier.verify(randomToken(), url), /within 100 ms/);
    as.release();
    assert.ok((await first) instanceof InvalidTokenError);
  });

  it("identical questions in flight share one introspection", async () => {
    const verifier = tokenIntrospection(options());
    const token = randomToken();
    as.hold();
    const verdicts = Array.from({ length: 10 }, () =>
      verifier.verify(token, "http://127.0.0.1:1/mcp").catch((error: unknown) => error),
    );
    await as.running(1);
    as.release();
    for (const verdict of await Promise.all(verdicts)) {
      assert.ok(verdict instanceof InvalidTokenError);
    }
    assert.equal(as.asked.get(token), 1);
  });

  it("a refusal is remembered for negativeCacheMs only, and for its resource only", async () => {
    const verifier = tokenIntrospection(options({ negativeCacheMs: 2_000 }));
    const token = randomToken();
    const resource = "http://127.0.0.1:1/mcp";
    await assert.rejects(verifier.verify(token, resource), InvalidTokenError);
    await assert.rejects(verifier.verify(token, resource), InvalidTokenError);
    assert.equal(as.asked.get(token), 1);
    await assert.rejects(verifier.verify(token, "http://127.0.0.1:1/sse"), InvalidTokenError);
    assert.equal(as.asked.get(token), 2);
    await pause(2_100);
    await assert.rejects(verifier.verify(token, resource), InvalidTokenError);
    assert.equal(as.asked.get(token), 3);
  });

  it("refuses an answer over the body cap unread: 503, reported", async () => {
    const { url } = await protect({});
    as.respond = (res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      const chunk = `"${"A".repeat(64 * 1024)}",`;
      res.write('{"active":true,"padding":[');
      let sent = 0;
      const more = (): void => {
        while (sent < 200 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        if (!res.destroyed) res.end('""]}');
      };
      more();
    };
    try {
      const response = await callTool(url, "whoami", `Bearer ${randomToken()}`);
      assert.equal(response.status, 503);
      assert.match(reported[0] ?? "", /introspection endpoint is over 256 KiB/);
    } finally {
      as.respond = undefined;
    }
  });
});
