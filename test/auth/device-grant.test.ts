/**
 * The device authorization grant's clock (RFC 8628 §3.5): polls every `interval` seconds, five
 * more after each slow_down, against the test issuer on 127.0.0.1. The clock is mocked, so the
 * real 5 s back-off is checked to the millisecond without being waited out.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type DeviceCodePrompt, OAuthClient } from "../../src/auth/index.js";
import { mockClock, track } from "../helpers/mock-clock.js";
import { type JwtIssuer, startJwtIssuer } from "./jwt-issuer.js";

/** A protected MCP endpoint that only ever challenges: enough to start an authorization. */
async function challengingServer(issuer: string): Promise<{ url: URL; server: Server }> {
  const server = createServer((request, response) => {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (request.url === "/.well-known/oauth-protected-resource/mcp") {
      response.writeHead(200, { "Content-Type": "application/json" });
      response.end(JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [issuer] }));
      return;
    }
    response.writeHead(401, {
      "WWW-Authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    });
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), server };
}

describe("device authorization grant polling", () => {
  let as: JwtIssuer;
  let rs: { url: URL; server: Server };
  before(async () => {
    as = await startJwtIssuer({ slowDownOnce: true });
    rs = await challengingServer(as.issuer);
  });
  after(async () => {
    rs.server.closeAllConnections();
    await new Promise((resolve) => rs.server.close(resolve));
    await as.close();
  });

  const polls = () => [...as.flows.devicePolls.values()].reduce((sum, n) => sum + n, 0);

  it("waits the server's interval, then 5 s more after slow_down, then gets the token", async (t) => {
    const clock = mockClock(t);
    let prompt: DeviceCodePrompt | undefined;
    const auth = new OAuthClient({
      grant: "device_code",
      device: { show: (shown) => (prompt = shown) },
    });
    const request = { method: "POST", url: rs.url, endpoint: rs.url };
    const sent = await auth.headers(request);
    const challenge = await fetch(rs.url, { method: "POST" });
    const outcome = track(
      auth.onChallenge({ request, status: 401, headers: challenge.headers, sent, retried: false }),
    );
    await clock.until(() => prompt !== undefined, "the code to be shown");

    // interval 1: no poll before a second has passed, one at the second.
    await clock.advance(999);
    assert.equal(polls(), 0);
    await clock.advance(1);
    await clock.until(() => as.flows.devicePolls.get("slow_down") === 1, "the slowed-down poll");

    const approved = await fetch(`${as.issuer}/device`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ user_code: prompt!.userCode, action: "approve" }),
    });
    assert.equal(approved.status, 200);

    // Now 1 + 5 s between polls.
    await clock.advance(5_999);
    assert.equal(polls(), 1, "no poll before the slower interval has passed");
    assert.equal(outcome.now().state, "pending");
    await clock.advance(1);
    await clock.until(() => outcome.now().state !== "pending", "the grant to finish");
    assert.deepEqual(outcome.now(), { state: "fulfilled", value: "retry" });
    assert.equal(as.flows.devicePolls.get("granted"), 1);
    assert.match((await auth.headers(request)).Authorization ?? "", /^Bearer /);
  });
});
