/**
 * The gateway bounds what one HTTP listen stream costs its child: at most --max-uris-per-stream
 * resource URIs per subscriptions/listen (default 1000; more is -32602 naming the cap, and the
 * child is asked for nothing), and every child subscription a stream caused is released when the
 * stream ends, however it ends (closed after its acknowledgement, or before it).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import {
  connectClient,
  fixture,
  type RunningGateway,
  sentToChild,
  sentToChildAtLeast,
  startGateway,
} from "./gateway-run.js";
import { stop, waitFor } from "./run-cli.js";

const uris = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `mem://${prefix}/${index}`);

for (const childEra of ["modern", "legacy"] as const) {
  describe(`gateway listen-stream limits, ${childEra} child`, () => {
    let run: RunningGateway;
    const subscribes = (prefix: string) =>
      childEra === "modern"
        ? new RegExp(`"method":"subscriptions/listen".*mem://${prefix}/`)
        : new RegExp(`"method":"resources/subscribe".*mem://${prefix}/`);
    // A modern child's per-uri stream ends with a cancellation naming its request id; a legacy
    // child's subscription with resources/unsubscribe naming the uri.
    const releases = (prefix: string) =>
      childEra === "modern"
        ? /"method":"notifications\/cancelled"/
        : new RegExp(`"method":"resources/unsubscribe".*mem://${prefix}/`);

    before(async () => {
      run = await startGateway(
        [fixture("subscriptions-server")],
        ["--era", childEra, "--verbose", "--max-uris-per-stream", "5"],
      );
    });
    after(() => stop(run.gateway));

    it("refuses a listen stream with more URIs than the cap (-32602 naming it)", async () => {
      const { client } = await connectClient(run.url, "modern");
      try {
        const listen = client.listen({ resourceSubscriptions: uris("over", 6) });
        const error = await listen.acknowledged.then(
          () => assert.fail("the stream was acknowledged"),
          (failure: unknown) => failure,
        );
        assert.ok(error instanceof JsonRpcError, String(error));
        assert.equal(error.code, -32602);
        assert.match(error.message, /at most 5\b/);
        await listen.close();
        assert.equal(sentToChild(run.gateway, subscribes("over")), 0);
      } finally {
        await client.close();
      }
    });

    it("refuses a legacy session's resources/subscribe past the cap", async () => {
      const { client } = await connectClient(run.url, "legacy");
      try {
        for (const uri of uris("legacy-cap", 5)) await client.subscribeResource(uri);
        const error = await client.subscribeResource("mem://legacy-cap/5").then(
          () => assert.fail("the sixth subscription was accepted"),
          (failure: unknown) => failure,
        );
        assert.ok(error instanceof JsonRpcError, String(error));
        assert.equal(error.code, -32602);
        assert.match(error.message, /at most 5\b/);
        // Subscribing again to one it has is no new cost, and still fine.
        await client.subscribeResource("mem://legacy-cap/0");
      } finally {
        await client.close();
      }
    });

    for (const when of ["after", "before"] as const) {
      it(`releases every child subscription of a stream closed ${when} its acknowledgement`, async () => {
        const prefix = `closed-${when}`;
        const cancelsBefore = sentToChild(run.gateway, releases(prefix));
        const { client } = await connectClient(run.url, "modern");
        try {
          const listen = client.listen({ resourceSubscriptions: uris(prefix, 5) });
          if (when === "after") {
            assert.equal((await listen.acknowledged).resourceSubscriptions?.length, 5);
          } else {
            await waitFor("the child to be asked", () =>
              sentToChild(run.gateway, subscribes(prefix)) > 0 ? true : undefined,
            );
          }
          await listen.close();
          // The wire log trails the HTTP answers: wait for the stream's 5 subscriptions to show
          // before comparing releases with them.
          assert.equal(await sentToChildAtLeast(run.gateway, subscribes(prefix), 5), 5);
          await waitFor("the child to be unsubscribed from all 5", () =>
            sentToChild(run.gateway, releases(prefix)) - cancelsBefore >=
            sentToChild(run.gateway, subscribes(prefix))
              ? true
              : undefined,
          );
        } finally {
          await client.close();
        }
      });
    }
  });
}

describe("gateway listen streams on a child that never acknowledges some uris", () => {
  let run: RunningGateway;
  before(async () => {
    run = await startGateway(
      [fixture("slow-subscriptions-server")],
      ["--era", "modern", "--verbose"],
    );
  });
  after(() => stop(run.gateway));

  it("allows 1000 uris per listen stream by default", async () => {
    const { client } = await connectClient(run.url, "modern");
    try {
      const listen = client.listen({ resourceSubscriptions: uris("default-cap", 1001) });
      const error = await listen.acknowledged.then(
        () => assert.fail("the stream was acknowledged"),
        (failure: unknown) => failure,
      );
      assert.ok(error instanceof JsonRpcError, String(error));
      assert.equal(error.code, -32602);
      assert.match(error.message, /asks for 1001 .* at most 1000 per stream/);
      await listen.close();
    } finally {
      await client.close();
    }
  });

  it("releases the acknowledged and the pending child subscriptions when the stream ends", async () => {
    const asked = /"method":"subscriptions\/listen".*mem:\/\/(fast|hang)\//;
    const cancelled = /"method":"notifications\/cancelled"/;
    const { client } = await connectClient(run.url, "modern");
    try {
      const listen = client.listen({
        resourceSubscriptions: ["mem://fast/1", "mem://fast/2", "mem://hang/1"],
      });
      await waitFor("the child to be asked for all three", () =>
        sentToChild(run.gateway, asked) === 3 ? true : undefined,
      );
      const before = sentToChild(run.gateway, cancelled);
      await listen.close();
      // The gateway cannot acknowledge (it waits on mem://hang/1); the stream ending must still
      // end all three child subscriptions, the one never acknowledged included.
      await waitFor("the child's three subscriptions to be cancelled", () =>
        sentToChild(run.gateway, cancelled) - before >= 3 ? true : undefined,
      );
    } finally {
      await client.close();
    }
  });
});
