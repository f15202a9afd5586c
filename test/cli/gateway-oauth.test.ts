/**
 * `mcpwire gateway --auth-issuer <url>`: the gateway as an OAuth protected resource, taking JWT
 * access tokens from that issuer (audience: the URL it listens on, or --auth-resource) and
 * serving the metadata that names it; --auth-scopes advertised in the challenge and the metadata
 * (a warning without them); the HTTP+SSE paths (--legacy-sse) a resource of their own, …/sse,
 * with its metadata; bad combinations are usage errors.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type JwtIssuer, startJwtIssuer } from "../auth/jwt-issuer.js";
import { challengeOf, metadataUrlOf } from "../auth/resource-server-fixtures.js";
import { json, post, request } from "../transports/http/http-helpers.js";
import { initializeBody, SseEvents } from "../transports/http/legacy-helpers.js";
import { OUR_EVERYTHING, type RunningGateway, startGateway } from "./gateway-run.js";
import { runCli, stop } from "./run-cli.js";

const listTools = (url: string, token?: string) =>
  post(url, request("tools/list"), token === undefined ? {} : { Authorization: `Bearer ${token}` });

describe("gateway --auth-issuer", () => {
  let as: JwtIssuer;
  let running: RunningGateway;
  before(async () => {
    as = await startJwtIssuer();
    running = await startGateway(OUR_EVERYTHING, ["--auth-issuer", as.issuer]);
  });
  after(async () => {
    await stop(running.gateway);
    await as.close();
  });

  it("serves the metadata naming the issuer and refuses a request without a token", async () => {
    const document = await json(await fetch(metadataUrlOf(running.url)));
    assert.equal(document.resource, running.url);
    assert.deepEqual(document.authorization_servers, [as.issuer]);
    const refused = await listTools(running.url);
    assert.equal(refused.status, 401);
    assert.equal(challengeOf(refused).resource_metadata, metadataUrlOf(running.url));
  });

  it("relays a request with the issuer's token for this gateway, and refuses one for elsewhere", async () => {
    const good = await listTools(running.url, await as.mint(running.url));
    assert.equal(good.status, 200);
    assert.ok((await json(good)).result.tools.length > 0);
    const elsewhere = await listTools(running.url, await as.mint("http://127.0.0.1:1/mcp"));
    assert.equal(elsewhere.status, 401);
  });
});

describe("gateway --auth-issuer without --auth-scopes", () => {
  it("warns once at start that it advertises no scope", async () => {
    const as = await startJwtIssuer();
    let running: RunningGateway | undefined;
    try {
      running = await startGateway(OUR_EVERYTHING, ["--auth-issuer", as.issuer]);
      const warnings = running.gateway.stderr().match(/advertises no scope.*$/gm) ?? [];
      assert.equal(warnings.length, 1, running.gateway.stderr());
      const refused = await listTools(running.url);
      assert.equal(challengeOf(refused).scope, undefined);
    } finally {
      if (running) await stop(running.gateway);
      await as.close();
    }
  });
});

describe("gateway --auth-issuer --auth-scopes --legacy-sse", () => {
  const SCOPES = "mcp:tools mcp:read";
  let as: JwtIssuer;
  let running: RunningGateway;
  let sseResource: string;
  before(async () => {
    as = await startJwtIssuer();
    running = await startGateway(OUR_EVERYTHING, [
      ...["--auth-issuer", as.issuer, "--auth-scopes", SCOPES, "--legacy-sse"],
    ]);
    sseResource = new URL("/sse", running.url).href;
  });
  after(async () => {
    if (running) await stop(running.gateway);
    await as.close();
  });

  const openSse = (token?: string) =>
    fetch(sseResource, {
      headers: {
        Accept: "text/event-stream",
        ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
      },
    });

  it("names its scopes in the 401 challenge and as scopes_supported, and does not warn", async () => {
    const refused = await listTools(running.url);
    assert.equal(refused.status, 401);
    assert.equal(challengeOf(refused).scope, SCOPES);
    const document = await json(await fetch(metadataUrlOf(running.url)));
    assert.deepEqual(document.scopes_supported, SCOPES.split(" "));
    assert.doesNotMatch(running.gateway.stderr(), /advertises no scope/);
    const granted = await listTools(
      running.url,
      await as.mint(running.url, { claims: { scope: SCOPES } }),
    );
    assert.equal(granted.status, 200);
  });

  it("/sse points at metadata whose resource is …/sse, with the same scopes", async () => {
    const refused = await openSse();
    assert.equal(refused.status, 401);
    const challenge = challengeOf(refused);
    assert.equal(challenge.resource_metadata, metadataUrlOf(sseResource));
    assert.equal(challenge.scope, SCOPES);
    const document = await json(await fetch(challenge.resource_metadata!));
    assert.equal(document.resource, sseResource);
    assert.deepEqual(document.authorization_servers, [as.issuer]);
    assert.deepEqual(document.scopes_supported, SCOPES.split(" "));
    // The root document stays the Streamable HTTP endpoint's.
    const root = await json(
      await fetch(new URL("/.well-known/oauth-protected-resource", running.url)),
    );
    assert.equal(root.resource, running.url);
  });

  it("takes a token for …/sse at /sse and /messages, and keeps the two resources' tokens apart", async () => {
    const forSse = await as.mint(sseResource, { claims: { scope: SCOPES } });
    const forMcp = await as.mint(running.url, { claims: { scope: SCOPES } });
    assert.equal((await openSse(forMcp)).status, 401);
    assert.equal((await listTools(running.url, forSse)).status, 401);
    const stream = await openSse(forSse);
    assert.equal(stream.status, 200);
    const events = new SseEvents(stream);
    const endpoint = new URL((await events.next())!.data, running.url);
    const postAs = (token: string) =>
      fetch(endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
        body: JSON.stringify(initializeBody("2024-11-05")),
      });
    const wrong = await postAs(forMcp);
    assert.equal(wrong.status, 401);
    assert.equal(challengeOf(wrong).resource_metadata, metadataUrlOf(sseResource));
    assert.equal((await postAs(forSse)).status, 202);
    await events.cancel();
  });
});

describe("gateway --auth-issuer usage errors", () => {
  const cases: [string[], RegExp][] = [
    [["--auth-resource", "https://mcp.example/mcp"], /--auth-resource needs --auth-issuer/],
    [["--auth-issuer", "https://as.example", "--token", "x"], /exclude each other/],
    [["--auth-issuer", "http://as.example"], /must be https/],
    [["--auth-issuer", "https://as.example", "--listen", "0.0.0.0:0"], /needs --auth-resource/],
    [["--auth-scopes", "mcp:tools"], /--auth-scopes needs --auth-issuer/],
    [["--auth-issuer", "https://as.example", "--auth-scopes", " "], /at least one scope/],
  ];
  for (const [args, message] of cases) {
    it(`refuses ${args.join(" ")}`, async () => {
      const run = await runCli(["gateway", ...args, "--", "true"]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
    });
  }
});
