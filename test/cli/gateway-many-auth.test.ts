/**
 * `mcpwire gateway --config FILE --auth-issuer URL --tool-scopes FILE` with several servers: one
 * protected resource (the origin) for /mcp and every /servers/<name>/mcp, its metadata served,
 * and each caller shown the tools its token's scopes allow (hidden ones refused as unknown).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { type JwtIssuer, startJwtIssuer } from "../auth/jwt-issuer.js";
import { challengeOf } from "../auth/resource-server-fixtures.js";
import { fixture, startConfigGateway } from "./gateway-run.js";
import { type Running, runCli, stop } from "./run-cli.js";

describe("gateway over a config file, with --auth-issuer and --tool-scopes", () => {
  let as: JwtIssuer;
  let dir: string;
  let gateway: Running;
  let origin: string;
  const clients: McpClient[] = [];

  before(async () => {
    as = await startJwtIssuer();
    dir = mkdtempSync(join(tmpdir(), "mcpwire-gw-auth-"));
    const entry = { command: process.execPath, args: [fixture("gateway-plain-server")] };
    writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: { a: entry, b: entry } }));
    writeFileSync(join(dir, "scopes.json"), JSON.stringify({ "a:use": ["a_*"], admin: ["*"] }));
    ({ gateway, origin } = await startConfigGateway(join(dir, "mcp.json"), [
      "--auth-issuer",
      as.issuer,
      "--auth-scopes",
      "mcp",
      "--tool-scopes",
      join(dir, "scopes.json"),
    ]));
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await stop(gateway);
    await as.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function connect(path: string, scope: string): Promise<McpClient> {
    const token = await as.mint(origin, { claims: { scope } });
    const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era: "modern" });
    await client.connect(
      new HttpClientTransport(`${origin}${path}`, {
        headers: { authorization: `Bearer ${token}` },
        flavourCache: new Map(),
      }),
    );
    clients.push(client);
    return client;
  }
  const names = async (client: McpClient) =>
    (await client.listTools()).tools.map((tool) => tool.name).sort();

  it("is one protected resource, the origin, for every path", async () => {
    for (const path of ["/mcp", "/servers/a/mcp"]) {
      const refused = await fetch(`${origin}${path}`, { method: "POST", body: "{}" });
      assert.equal(refused.status, 401);
      const metadataUrl = challengeOf(refused).resource_metadata;
      assert.equal(metadataUrl, `${origin}/.well-known/oauth-protected-resource`);
      const document = (await (await fetch(metadataUrl!)).json()) as Record<string, unknown>;
      assert.equal(document.resource, origin);
      assert.deepEqual(document.authorization_servers, [as.issuer]);
    }
  });

  it("shows each caller the tools its scopes allow, on /mcp and each server's path", async () => {
    const user = await connect("/mcp", "mcp a:use");
    assert.deepEqual(await names(user), ["a_noop"]);
    const hidden = await user.callTool("b_noop", {}).catch((error) => error);
    assert.ok(hidden instanceof JsonRpcError);
    assert.equal(hidden.message, "Unknown tool: b_noop");
    assert.equal((await user.callTool("a_noop", {})).isError, undefined);
    const admin = await connect("/mcp", "mcp admin");
    assert.deepEqual(await names(admin), ["a_noop", "b_noop"]);
    assert.deepEqual(await names(await connect("/servers/b/mcp", "mcp a:use")), []);
    assert.deepEqual(await names(await connect("/servers/a/mcp", "mcp a:use")), ["noop"]);
  });

  it("wants --auth-issuer for --tool-scopes, and a well-formed file", async () => {
    const config = join(dir, "mcp.json");
    const lonely = await runCli([
      "gateway",
      "--config",
      config,
      "--tool-scopes",
      join(dir, "scopes.json"),
    ]);
    assert.equal(lonely.code, 2);
    assert.match(lonely.stderr, /--tool-scopes needs --auth-issuer/);
    writeFileSync(join(dir, "bad.json"), JSON.stringify({ admin: "*" }));
    const bad = await runCli([
      "gateway",
      "--config",
      config,
      "--auth-issuer",
      as.issuer,
      "--tool-scopes",
      join(dir, "bad.json"),
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /expected an object mapping each scope to an array of tool globs/);
  });
});
