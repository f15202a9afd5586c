/**
 * mcp-remote (from npm: a stdio MCP server that relays to a remote one, signing in with the
 * official SDK v1's OAuth) as the client of mcpwire's protected endpoints, with oidc-provider
 * as the authorization server: run as a subprocess on its stdio, its "browser" a script
 * ($BROWSER, which the xdg-open it calls runs) that follows oidc-provider's interactions and
 * delivers the code to mcp-remote's callback server. It reaches the gateway and the everything
 * example over Streamable HTTP, and an endpoint whose resource is its origin: mcp-remote asks
 * for `http://host:port/` (with the slash), a token the endpoint configured without one takes.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { protectResource } from "../../src/auth/index.js";
import { McpClient } from "../../src/client/index.js";
import { McpServer } from "../../src/server/index.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";
import { StdioClientTransport } from "../../src/transports/stdio/client.js";
import { OUR_EVERYTHING, type RunningGateway, startGateway } from "../cli/gateway-run.js";
import { stop } from "../cli/run-cli.js";
import { type ListeningChild, spawnListening, stopChild } from "../helpers/listening-child.js";
import { type OidcProvider, startOidcProvider } from "./oidc-provider-process.js";

const require = createRequire(import.meta.url);
const MCP_REMOTE = join(dirname(require.resolve("mcp-remote/package.json")), "dist/proxy.js");
const BROWSER_SCRIPT = new URL("./headless-browser.js", import.meta.url).pathname;
const SERVER = new URL("../../examples/everything-server.js", import.meta.url).pathname;
const SCOPES = ["mcp:tools"];

let op: OidcProvider;
let gateway: RunningGateway;
let everything: ListeningChild;
let originServed: ServedHttp;
/** The token audiences the origin-resource endpoint's tool saw. */
const audiences: unknown[] = [];
let configDir: string;

before(async () => {
  op = await startOidcProvider({
    resources: { "/mcp": SCOPES, "/": SCOPES },
    clients: [],
    accessTokenTtl: 300,
  });
  const auth = ["--auth-issuer", op.issuer, "--auth-scopes", SCOPES.join(" ")];
  // One after the other: a start that fails leaves nothing running that after() cannot stop.
  configDir = await mkdtemp(join(tmpdir(), "mcp-remote-"));
  gateway = await startGateway(OUR_EVERYTHING, auth);
  everything = await spawnListening(process.execPath, [SERVER, "--http", "--port", "0", ...auth]);
  originServed = await serveOriginResource(op.issuer);
});
after(async () => {
  await Promise.all([
    gateway && stop(gateway.gateway),
    everything && stopChild(everything.child),
    originServed?.close(),
  ]);
  await op?.close();
  if (configDir) await rm(configDir, { recursive: true, force: true });
});

/** A protected endpoint at /mcp whose resource identifier is its origin, without a slash. */
async function serveOriginResource(issuer: string): Promise<ServedHttp> {
  const server = new McpServer({ serverInfo: { name: "origin-resource", version: "1.0.0" } });
  server.tool(
    { name: "test_simple_text", inputSchema: { type: "object" } },
    async (_args, context) => {
      audiences.push((context.principal as { claims: { aud: unknown } }).claims.aud);
      return { content: [{ type: "text", text: "from the origin resource" }] };
    },
  );
  const auth = protectResource({ issuer, requiredScopes: SCOPES });
  const useEndpointUrl = auth.useEndpointUrl!.bind(auth);
  auth.useEndpointUrl = (url) => useEndpointUrl(new URL(url).origin);
  return serveHttp(server, { auth });
}

/** A port nothing listens on right now, for mcp-remote's OAuth callback server. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** mcp-remote for `url`, signing in on its own, then test_simple_text through it. */
async function throughMcpRemote(url: string): Promise<string> {
  let stderr = "";
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_REMOTE, url, String(await freePort()), "--host", "127.0.0.1"],
    env: {
      BROWSER: `${process.execPath} ${BROWSER_SCRIPT}`,
      MCP_REMOTE_CONFIG_DIR: configDir,
    },
    onStderr: (text) => {
      stderr += text;
    },
  });
  const client = new McpClient({
    clientInfo: { name: "via-mcp-remote", version: "1" },
    era: "legacy",
  });
  try {
    await client.connect(transport);
    const result = await client.callTool("test_simple_text", {});
    return (result.content[0] as { text: string }).text;
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- mcp-remote's stderr:\n${stderr}`);
  } finally {
    await client.close();
  }
}

describe("mcp-remote signing in with its own OAuth", () => {
  it("reaches the gateway over Streamable HTTP", async () => {
    const before = await op.counts();
    assert.match(await throughMcpRemote(gateway.url), /\S/);
    assert.equal((await op.counts()).authorize - before.authorize, 1);
  });

  it("reaches the everything example over Streamable HTTP", async () => {
    const url = `http://localhost:${new URL(everything.url).port}/mcp`;
    const before = await op.counts();
    assert.match(await throughMcpRemote(url), /\S/);
    assert.equal((await op.counts()).authorize - before.authorize, 1);
  });

  it("reaches an endpoint whose resource is its origin with a token for the origin with a slash", async () => {
    assert.equal(await throughMcpRemote(originServed.url), "from the origin resource");
    const origin = new URL(originServed.url).origin;
    assert.deepEqual(audiences, [`${origin}/`]);
  });
});
