/**
 * `mcpwire auth logout <url>` revokes the tokens at the authorization server (RFC 7009) before
 * forgetting them, against a real one: oidc-provider (revocation enabled) in front of the
 * everything example. The CLI logs in (the test is the browser), logs out, and the refresh token
 * it held no longer works, while another login's still does (the same without a URL, for every
 * server). A revocation the server refuses is one line on stderr with no secret in it, and the
 * tokens are forgotten all the same.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { browserRedirect } from "../auth/browser-redirect.js";
import { type OidcProvider, startOidcProvider } from "../auth/oidc-provider-process.js";
import { type ListeningChild, spawnListening, stopChild } from "../helpers/listening-child.js";
import { EVERYTHING_SERVER, runCli, startCli, waitFor } from "./run-cli.js";

const NEEDED = ["mcp:tools"];

let op: OidcProvider;
let everything: ListeningChild;
let mcpUrl: string;
const homes: string[] = [];

before(async () => {
  op = await startOidcProvider({ resources: { "/mcp": NEEDED }, clients: [], accessTokenTtl: 300 });
  everything = await spawnListening(process.execPath, [
    EVERYTHING_SERVER,
    ...["--http", "--port", "0", "--auth-issuer", op.issuer, "--auth-scopes", NEEDED.join(" ")],
  ]);
  mcpUrl = `http://localhost:${new URL(everything.url).port}/mcp`;
});
after(async () => {
  await stopChild(everything.child);
  await op.close();
  for (const home of homes) await rm(home, { recursive: true, force: true });
});

const cliEnv = (home: string) => ({
  MCPWIRE_HOME: home,
  BROWSER: "none",
  MCPWIRE_BEARER: undefined,
  MCPWIRE_CLIENT_SECRET: undefined,
});

interface StoreFile {
  tokens: Record<string, { accessToken: string; refreshToken?: string; issuer: string }>;
  clients: Record<string, { clientId: string }>;
}

const readStore = async (home: string): Promise<StoreFile> =>
  JSON.parse(await readFile(join(home, "tokens.json"), "utf8"));

/** `mcpwire auth login` in a fresh home, with the test as the browser; returns the home. */
async function login(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), "mcpwire-revoke-"));
  homes.push(home);
  const running = startCli(["auth", "login", mcpUrl], { env: cliEnv(home) });
  const printed = await waitFor("the printed URL", () => {
    if (running.child.exitCode !== null) throw new Error(`exited: ${running.stderr()}`);
    return /^\s+(http:\/\/\S+\/auth\?\S+)$/m.exec(running.stderr())?.[1];
  });
  const url = new URL(printed);
  const redirectUri = url.searchParams.get("redirect_uri") as string;
  const back = await browserRedirect(redirectUri).authorize(url);
  await (await fetch(`${redirectUri}?${back}`)).body?.cancel();
  const run = await running.done;
  assert.equal(run.code, 0, run.stderr);
  return home;
}

/** The refresh token grant at oidc-provider, as the public client the CLI registered. */
function refresh(store: StoreFile) {
  const tokens = store.tokens[mcpUrl]!;
  const clientId = store.clients[tokens.issuer]!.clientId;
  return op.refresh(tokens.refreshToken as string, clientId, mcpUrl);
}

function assertNoSecrets(output: string, store: StoreFile): void {
  const tokens = store.tokens[mcpUrl]!;
  assert.ok(!output.includes(tokens.accessToken), "the access token was shown");
  assert.ok(!output.includes(tokens.refreshToken as string), "the refresh token was shown");
}

describe("mcpwire auth logout <url> with revocation (oidc-provider)", () => {
  it("revokes the refresh token: it no longer works, another login's still does", async () => {
    const home = await login();
    const other = await login();
    const held = await readStore(home);
    assert.ok(held.tokens[mcpUrl]?.refreshToken, "offline_access gave a refresh token");
    const run = await runCli(["auth", "logout", mcpUrl], { env: cliEnv(home) });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      `logged out of ${mcpUrl}; forgot the client kept for ${held.tokens[mcpUrl]!.issuer}\n`,
    );
    // oidc-provider's access tokens are JWTs, which it cannot revoke: said in one line.
    assert.equal(
      run.stderr,
      `warning: access token for ${mcpUrl} not revoked at ${op.issuer}: the server answered HTTP 400 unsupported_token_type; the access token stays valid until it expires\n`,
    );
    assertNoSecrets(run.stdout + run.stderr, held);
    assert.equal((await readStore(home)).tokens[mcpUrl], undefined);
    assert.deepEqual(await refresh(held), { status: 400, error: "invalid_grant" });
    assert.equal((await refresh(await readStore(other))).status, 200);
  });

  it("without a URL: revokes every server's tokens before forgetting them all", async () => {
    const home = await login();
    const held = await readStore(home);
    const run = await runCli(["auth", "logout"], { env: cliEnv(home) });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^forgot every token and registration/);
    assert.match(run.stderr, /^warning: access token for \S+ not revoked at \S+: [^\n]+\n$/);
    assertNoSecrets(run.stdout + run.stderr, held);
    assert.deepEqual(await refresh(held), { status: 400, error: "invalid_grant" });
  });

  it("a refused revocation is one line on stderr, and the tokens are forgotten anyway", async () => {
    const home = await login();
    const held = await readStore(home);
    const issuer = held.tokens[mcpUrl]!.issuer;
    // A registration the server does not know: it refuses to authenticate the client.
    held.clients[issuer] = { clientId: "nobody-registered-this" };
    await writeFile(join(home, "tokens.json"), JSON.stringify(held));
    const run = await runCli(["auth", "logout", mcpUrl], { env: cliEnv(home) });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      `logged out of ${mcpUrl}; forgot the client kept for ${held.tokens[mcpUrl]!.issuer}\n`,
    );
    assert.match(
      run.stderr,
      /^warning: refresh token and access token for \S+ not revoked at \S+: the server answered HTTP 401 invalid_client; the access token stays valid until it expires\n$/,
    );
    assertNoSecrets(run.stdout + run.stderr, held);
    assert.equal((await readStore(home)).tokens[mcpUrl], undefined);
  });
});
