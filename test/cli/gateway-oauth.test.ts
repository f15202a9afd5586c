/**
 * `mcpwire gateway --auth-issuer <url>`: the gateway as an OAuth protected resource, taking JWT
 * access tokens from that issuer (audience: the URL it listens on, or --auth-resource) and
 * serving the metadata that names it; bad combinations are usage errors.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type JwtIssuer, startJwtIssuer } from "../auth/jwt-issuer.js";
import { challengeOf, metadataUrlOf } from "../auth/resource-server-fixtures.js";
import { json, post, request } from "../transports/http/http-helpers.js";
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

describe("gateway --auth-issuer usage errors", () => {
  const cases: [string[], RegExp][] = [
    [["--auth-resource", "https://mcp.example/mcp"], /--auth-resource needs --auth-issuer/],
    [["--auth-issuer", "https://as.example", "--token", "x"], /exclude each other/],
    [["--auth-issuer", "http://as.example"], /must be https/],
    [["--auth-issuer", "https://as.example", "--listen", "0.0.0.0:0"], /needs --auth-resource/],
  ];
  for (const [args, message] of cases) {
    it(`refuses ${args.join(" ")}`, async () => {
      const run = await runCli(["gateway", ...args, "--", "true"]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
    });
  }
});
