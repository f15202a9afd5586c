/**
 * The everything example as a protected resource: `--http --auth-issuer ISSUER` serves the
 * metadata naming ISSUER at /.well-known/oauth-protected-resource/mcp and takes JWT access tokens
 * from ISSUER whose audience is http://localhost:<port>/mcp (or --auth-resource).
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { waitFor } from "../cli/run-cli.js";
import { spawnListening, stopChild } from "../helpers/listening-child.js";
import { json, post, request } from "../transports/http/http-helpers.js";
import { type JwtIssuer, startJwtIssuer } from "./jwt-issuer.js";
import { challengeOf } from "./resource-server-fixtures.js";

const SERVER = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../examples/everything-server.js",
);

async function start(
  args: string[],
): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  return spawnListening(process.execPath, [SERVER, "--http", "--port", "0", ...args]);
}

const stop = stopChild;

const listTools = (url: string, token?: string) =>
  post(url, request("tools/list"), token === undefined ? {} : { Authorization: `Bearer ${token}` });

describe("everything example with --auth-issuer", () => {
  let as: JwtIssuer;
  let server: { child: ChildProcess; url: string; stderr: () => string };
  let port: string;
  before(async () => {
    as = await startJwtIssuer();
    server = await start(["--auth-issuer", as.issuer]);
    port = new URL(server.url).port;
  });
  after(async () => {
    await stop(server.child);
    await as.close();
  });

  it("serves metadata naming the issuer and the localhost resource", async () => {
    const response = await fetch(
      `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`,
    );
    assert.equal(response.status, 200);
    const document = await json(response);
    assert.equal(document.resource, `http://localhost:${port}/mcp`);
    assert.deepEqual(document.authorization_servers, [as.issuer]);
  });

  it("warns at start that it advertises no scope (no --auth-scopes)", async () => {
    // stderr and stdout ("listening on") are separate pipes: the line may come second.
    const warning = /^warning: --auth-issuer without --auth-scopes advertises no scope/m;
    await waitFor("the warning", () => (warning.test(server.stderr()) ? true : undefined));
  });

  it("refuses a request without a token, pointing at the metadata", async () => {
    const response = await listTools(server.url);
    assert.equal(response.status, 401);
    assert.equal(
      challengeOf(response).resource_metadata,
      `http://localhost:${port}/.well-known/oauth-protected-resource/mcp`,
    );
  });

  it("takes the issuer's JWT whose audience is the resource, and only that", async () => {
    const good = await listTools(server.url, await as.mint(`http://localhost:${port}/mcp`));
    assert.equal(good.status, 200);
    assert.ok((await json(good)).result.tools.length > 10);
    const elsewhere = await listTools(server.url, await as.mint(server.url));
    assert.equal(elsewhere.status, 401);
  });
});

describe("everything example with --auth-resource", () => {
  it("uses the given resource URL as audience and in the metadata", async () => {
    const as = await startJwtIssuer();
    const resource = "https://mcp.example.com/mcp";
    const server = await start(["--auth-issuer", as.issuer, "--auth-resource", resource]);
    try {
      const document = await json(
        await fetch(new URL("/.well-known/oauth-protected-resource/mcp", server.url)),
      );
      assert.equal(document.resource, resource);
      assert.equal((await listTools(server.url, await as.mint(resource))).status, 200);
      assert.equal((await listTools(server.url, await as.mint(server.url))).status, 401);
    } finally {
      await stop(server.child);
      await as.close();
    }
  });

  it("refuses --auth-resource without --auth-issuer, a bad URL, and an issuer over plain http off loopback", async () => {
    for (const args of [
      ["--auth-issuer", "http://as.example"],
      ["--auth-resource", "https://x.example/mcp"],
      ["--auth-issuer", "not a url"],
    ]) {
      const child = spawn(process.execPath, [SERVER, "--http", "--port", "0", ...args], {
        stdio: "pipe",
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      assert.equal(code, 2);
      assert.match(stderr, /--auth-(issuer|resource)/);
    }
  });
});
